//! Grano et al.'s "Testing with Fewer Resources" performance proxies as scores: the performance-score of one test (Equation 1, used
//! by aDynaMOSA's archive) and the performance-heuristic of a test within a front (Equation 2,
//! aDynaMOSA's alternative secondary heuristic to the crowding distance).

use crate::execution::ProductionProxies;
use crate::variation::TestCodeProxies;

/// All seven proxies of Grano et al., "Testing with Fewer Resources", Table I, in the paper's order I1..I7.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PerformanceProxies {
    pub production: ProductionProxies,
    pub test_code: TestCodeProxies,
}

impl PerformanceProxies {
    pub fn new(production: ProductionProxies, test_code: TestCodeProxies) -> PerformanceProxies {
        PerformanceProxies {
            production,
            test_code,
        }
    }

    /// `[I1, I2, I3, I4, I5, I6, I7]`.
    pub fn values(&self) -> [f64; 7] {
        let p = &self.production;
        let t = &self.test_code;
        [
            p.executed_loops as f64,
            p.covered_method_calls as f64,
            t.test_case_method_calls as f64,
            p.object_instantiations as f64,
            p.covered_statements as f64,
            t.test_case_statements as f64,
            t.test_length as f64,
        ]
    }

    /// Equation 1: `sum_k I_k / (I_k + 1)`, in `[0, 7)`; lower is cheaper.
    pub fn score(&self) -> f64 {
        self.values().iter().map(|v| v / (v + 1.0)).sum()
    }
}

/// Equation 2 for every test of a front: `sum_k (max_k - I_k(t)) / (max_k - min_k)` over the
/// front, in `[0, 7]`; higher is cheaper. A proxy on which the whole front agrees
/// (`max_k == min_k`) contributes 0 to every test: the paper leaves `0/0` undefined, and any
/// constant keeps the order the other proxies give.
pub fn performance_heuristic(front: &[[f64; 7]]) -> Vec<f64> {
    let mut min = [f64::INFINITY; 7];
    let mut max = [f64::NEG_INFINITY; 7];
    for values in front {
        for k in 0..7 {
            min[k] = min[k].min(values[k]);
            max[k] = max[k].max(values[k]);
        }
    }
    front
        .iter()
        .map(|values| {
            (0..7)
                .filter(|&k| max[k] > min[k])
                .map(|k| (max[k] - values[k]) / (max[k] - min[k]))
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(values: [u64; 7]) -> PerformanceProxies {
        PerformanceProxies {
            production: ProductionProxies {
                executed_loops: values[0],
                covered_method_calls: values[1],
                object_instantiations: values[3],
                covered_statements: values[4],
            },
            test_code: TestCodeProxies {
                test_case_method_calls: values[2],
                test_case_statements: values[5],
                test_length: values[6],
            },
        }
    }

    #[test]
    fn values_follow_table_one_order() {
        assert_eq!(
            proxies([1, 2, 3, 4, 5, 6, 7]).values(),
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
        );
    }

    #[test]
    fn performance_score_normalises_each_proxy() {
        // 0/1 + 1/2 + 3/4 + 0 + 1/2 + 0 + 9/10
        let score = proxies([0, 1, 3, 0, 1, 0, 9]).score();
        assert!((score - (0.5 + 0.75 + 0.5 + 0.9)).abs() < 1e-12, "{score}");
        assert!(proxies([1, 1, 1, 1, 1, 1, 1]).score() < proxies([1, 1, 1, 1, 1, 1, 2]).score());
    }

    #[test]
    fn performance_heuristic_ranges_from_worst_to_best() {
        let front = [
            [10.0, 4.0, 2.0, 0.0, 100.0, 3.0, 5.0], // worst everywhere it varies
            [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0],    // best everywhere
            [5.0, 2.0, 1.0, 0.0, 50.0, 2.0, 3.0],   // half-way
        ];
        let h = performance_heuristic(&front);
        // I4 is constant over the front and contributes nothing.
        assert_eq!(h[0], 0.0);
        assert_eq!(h[1], 6.0);
        assert!((h[2] - 3.0).abs() < 1e-12, "{h:?}");
    }
}
