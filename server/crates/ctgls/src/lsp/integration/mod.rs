//! Class-integration tests in the editor (Derakhshanfar et al., "Generating Class-Level
//! Integration Tests Using Call Site Information"; the CLI's `ctgls generate --class R --callee
//! E`): which classes of the project reach a class's branches through their calls of it
//! (`index`, the couplings built lazily from the project's sources), what the integration
//! runs of this session covered (`IntegrationRecord`), the hover that says both on a callee's
//! branch (`hover`) and the code action *Generate integration tests through R* (`actions`).
//!
//! Uncovered coupled pairs are not diagnostics: a callee's branch is coupled with every
//! caller branch that leads to each of its call sites, so they would bury the class's own
//! diagnostics; they are in the hover and in the CLI's report.

pub mod actions;
pub mod hover;
pub mod index;

use std::collections::HashMap;
use std::sync::Arc;

pub use crate::lsp::results::integration::IntegrationRecord;
pub use index::{Coupled, CouplingIndex, ProjectSources};

/// The owner's integration state: the coupling index and the records of this session's
/// integration runs by (caller, callee).
#[derive(Default)]
pub struct Integration {
    pub index: CouplingIndex,
    pub records: HashMap<(String, String), Arc<IntegrationRecord>>,
}

/// Two classes for the features' tests: `p.Bank` calls `p.Account` (a field made with `new`,
/// `withdraw` under a condition).
#[cfg(test)]
pub(crate) mod fixture {
    use std::sync::Arc;

    use javamodel::JavaModel;

    use super::index::Side;
    use super::Coupled;

    pub const ACCOUNT: &str = "package p;\n\npublic class Account {\n    private long balance;\n\n    public boolean withdraw(long amount) {\n        if (amount > balance) {\n            return false;\n        }\n        balance -= amount;\n        return true;\n    }\n}\n";
    pub const BANK: &str = "package p;\n\npublic class Bank {\n    private final Account account = new Account();\n\n    public boolean pay(long amount) {\n        if (amount <= 0) {\n            return false;\n        }\n        return account.withdraw(amount);\n    }\n}\n";

    pub fn side(text: &str, class: &str) -> Side {
        let simple = class.rsplit('.').next().unwrap_or(class);
        Side {
            path: format!("/p/{simple}.java").into(),
            class: class.to_string(),
            model: Arc::new(JavaModel::build(text, &syntax::parse_java(text, None))),
            hash: ctg::pipeline::source_hash(text),
        }
    }

    /// `p.Bank` through `p.Account`.
    pub fn coupled() -> Coupled {
        let (caller, callee) = (side(BANK, "p.Bank"), side(ACCOUNT, "p.Account"));
        let coupling =
            javamodel::coupling::couple(&caller.model, "p.Bank", &callee.model, "p.Account")
                .unwrap();
        Coupled {
            caller,
            callee,
            coupling: Arc::new(coupling),
        }
    }
}
