//! Which left-out assertions a nondeterministic input explains.
//!
//! An assertion is left out when its value differed: between emission's two observations
//! (docs/emission.md, "Observing") or in verification's JUnit runs. Either way the written test
//! keeps a comment, `// Not asserted: <subject> <why>.`, which is read back from the verified
//! source here, so whatever leaves a value out is linked the same way. An input explains a
//! left-out assertion of a test when the test ran the input's statement (its line is among the
//! lines the test's final run executed) and the input can cause what the comment says the value
//! depends on: time → the clock, randomness → random generators and UUIDs, identity hash codes →
//! nothing here, "differs between runs" → any input. When a test left a value out "because of
//! time" but ran no clock read, every input it ran is named rather than none (the cause is a
//! guess from names, `testcase::junit::Instability::classify`).
//!
//! Precision: statement coverage, per test. A test that ran two inputs names both for a value
//! only one of them produced; an input in a field's initializer (no line probe) counts as run
//! by every test.

use testcase::junit::Instability;

use super::{InputKind, NondeterministicInput};

/// One assertion the written tests leave out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The test method's name.
    pub test: String,
    /// The expression not asserted, as printed: `clock0.stamp()`.
    pub subject: String,
    /// Why, as the comment says: `differs between runs (it depends on time)`.
    pub why: String,
}

impl LeftOut {
    /// `stampIsPositive: clock0.stamp()`.
    pub fn display(&self) -> String {
        format!("{}: {}", self.test, self.subject)
    }

    fn cause(&self) -> Instability {
        if self.why.contains("identity hash code") {
            return Instability::IdentityHash;
        }
        [
            Instability::IdentityHash,
            Instability::Time,
            Instability::Randomness,
        ]
        .into_iter()
        .find(|cause| self.why == cause.note())
        .unwrap_or(Instability::Unknown)
    }
}

/// An input with the left-out assertions it explains (none when no written test left a value
/// out because of it, or no test ran it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linked {
    pub input: NondeterministicInput,
    pub left_out: Vec<LeftOut>,
}

/// A written test: its name and the lines of the class its final run executed.
#[derive(Debug, Clone, Copy)]
pub struct TestLines<'a> {
    pub name: &'a str,
    pub lines: &'a [u32],
}

/// The `// Not asserted:` comments of the named test methods of a printed test class.
pub fn left_out_assertions(source: &str, tests: &[String]) -> Vec<LeftOut> {
    let mut out = Vec::new();
    let mut current: Option<&str> = None;
    for line in source.lines() {
        let trimmed = line.trim();
        if let Some(name) = method_name(trimmed) {
            current = tests.iter().find(|t| *t == name).map(String::as_str);
            continue;
        }
        let (Some(test), Some(note)) = (current, trimmed.strip_prefix("// Not asserted: ")) else {
            continue;
        };
        let note = note.strip_suffix('.').unwrap_or(note);
        let split = [" differs between runs", " contains an identity hash code"]
            .iter()
            .filter_map(|marker| note.find(marker))
            .min();
        let Some(at) = split else {
            continue;
        };
        out.push(LeftOut {
            test: test.to_string(),
            subject: note[..at].to_string(),
            why: note[at + 1..].to_string(),
        });
    }
    out
}

/// `void name()` of a test method's declaration line.
fn method_name(line: &str) -> Option<&str> {
    let rest = line.split_once("void ")?.1;
    let (name, after) = rest.split_once('(')?;
    (after.starts_with(')') && !name.is_empty() && !name.contains(' ')).then_some(name)
}

/// Links every input of `inputs` to the left-out assertions of `tests` it explains.
/// `probed` are the lines of the class that have a line probe: an input whose statement has
/// none counts as run by every test.
pub fn link(
    inputs: &[NondeterministicInput],
    tests: &[TestLines],
    left_out: &[LeftOut],
    probed: &[u32],
) -> Vec<Linked> {
    let ran = |input: &NondeterministicInput, test: &TestLines| {
        let ran_line = |line: Option<u32>| match line.filter(|l| probed.binary_search(l).is_ok()) {
            Some(line) => test.lines.binary_search(&line).is_ok(),
            None => true,
        };
        ran_line(input.statement_line)
            && input
                .through
                .as_ref()
                .is_none_or(|(_, target)| ran_target(inputs, *target, &ran_line))
    };
    let mut linked: Vec<Linked> = inputs
        .iter()
        .map(|input| Linked {
            input: input.clone(),
            left_out: Vec::new(),
        })
        .collect();
    for assertion in left_out {
        let Some(test) = tests.iter().find(|t| t.name == assertion.test) else {
            continue;
        };
        let wanted: fn(InputKind) -> bool = match assertion.cause() {
            Instability::IdentityHash => continue,
            Instability::Time => |kind| kind == InputKind::Clock,
            Instability::Randomness => |kind| matches!(kind, InputKind::Random | InputKind::Uuid),
            Instability::Unknown => |_| true,
        };
        let run: Vec<usize> = (0..inputs.len())
            .filter(|&i| ran(&inputs[i], test))
            .collect();
        let caused: Vec<usize> = run
            .iter()
            .copied()
            .filter(|&i| wanted(inputs[i].kind))
            .collect();
        for i in if caused.is_empty() { run } else { caused } {
            linked[i].left_out.push(assertion.clone());
        }
    }
    linked
}

/// Whether the direct input on `line` ran, by `ran_line`.
fn ran_target(
    inputs: &[NondeterministicInput],
    line: u32,
    ran_line: &dyn Fn(Option<u32>) -> bool,
) -> bool {
    inputs
        .iter()
        .filter(|i| i.through.is_none() && i.line == line)
        .any(|i| ran_line(i.statement_line))
}
