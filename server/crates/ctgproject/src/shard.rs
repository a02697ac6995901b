//! Shards for CI runners (`--shard I/N`): every runner computes the same allocation for the
//! whole project and keeps its part. The parts are balanced by budget with the longest-first
//! greedy rule (Graham, "Multiprocessing Timing Anomalies": longest first; each class, largest budget first, goes to the shard with the
//! least budget so far), ties broken by name and shard number, so every runner agrees without
//! talking to the others.

use std::str::FromStr;
use std::time::Duration;

/// `I/N`: shard `I` (1-based, as CI matrices count) of `N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}` is not a shard like 1/4 (shard 1 of 4)");
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = index.trim().parse().map_err(|_| bad())?;
        let count: usize = count.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(format!(
                "shard `{text}`: the shard number must be between 1 and the count"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The shard (0-based) of every class of `budgets`, in its order.
pub fn assign(budgets: &[(String, Duration)], count: usize) -> Vec<usize> {
    let count = count.max(1);
    let mut by_size: Vec<usize> = (0..budgets.len()).collect();
    by_size.sort_by(|&a, &b| {
        budgets[b]
            .1
            .cmp(&budgets[a].1)
            .then(budgets[a].0.cmp(&budgets[b].0))
    });
    let mut load = vec![Duration::ZERO; count];
    let mut shard_of = vec![0; budgets.len()];
    for i in by_size {
        let lightest = (0..count).min_by_key(|&s| (load[s], s)).expect("count ≥ 1");
        load[lightest] += budgets[i].1;
        shard_of[i] = lightest;
    }
    shard_of
}

/// The classes of `budgets` that belong to `shard`, in `budgets`' order.
pub fn select(budgets: &[(String, Duration)], shard: Shard) -> Vec<String> {
    assign(budgets, shard.count)
        .into_iter()
        .zip(budgets)
        .filter(|(s, _)| *s == shard.index - 1)
        .map(|(_, (class, _))| class.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budgets(seconds: &[(&str, u64)]) -> Vec<(String, Duration)> {
        seconds
            .iter()
            .map(|(c, s)| (c.to_string(), Duration::from_secs(*s)))
            .collect()
    }

    #[test]
    fn parses_and_rejects() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
        assert!("0/3".parse::<Shard>().unwrap_err().contains("between 1"));
        assert!("4/3".parse::<Shard>().unwrap_err().contains("between 1"));
        assert!("x".parse::<Shard>().unwrap_err().contains("1/4"));
    }

    #[test]
    fn every_class_in_exactly_one_shard_balanced_by_budget() {
        let all = budgets(&[
            ("p.A", 60),
            ("p.B", 10),
            ("p.C", 40),
            ("p.D", 30),
            ("p.E", 20),
            ("p.F", 10),
        ]);
        // LPT: A(60)→1, C(40)→2, D(30)→2 (70), E(20)→1 (80), B(10)→2 (80), F(10)→1 (90)...
        // loads tie at 80 after B; F goes to the lower numbered shard.
        let first = select(&all, Shard { index: 1, count: 2 });
        let second = select(&all, Shard { index: 2, count: 2 });
        assert_eq!(first, ["p.A", "p.E", "p.F"]);
        assert_eq!(second, ["p.B", "p.C", "p.D"]);
        let load = |part: &[String]| -> u64 {
            part.iter()
                .map(|c| all.iter().find(|(n, _)| n == c).unwrap().1.as_secs())
                .sum()
        };
        assert_eq!((load(&first), load(&second)), (90, 80));
    }

    #[test]
    fn deterministic_whatever_the_input_order() {
        let all = budgets(&[("p.A", 5), ("p.B", 5), ("p.C", 5), ("p.D", 5), ("p.E", 1)]);
        let mut reversed = all.clone();
        reversed.reverse();
        for index in 1..=3 {
            let shard = Shard { index, count: 3 };
            let mut a = select(&all, shard);
            let mut b = select(&reversed, shard);
            a.sort();
            b.sort();
            assert_eq!(a, b);
        }
        // More shards than classes: some shards are empty, none is lost.
        let total: usize = (1..=8)
            .map(|index| select(&all, Shard { index, count: 8 }).len())
            .sum();
        assert_eq!(total, all.len());
    }
}
