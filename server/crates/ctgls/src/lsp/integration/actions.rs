//! The code action *Generate integration tests through R*: on the declaration of a class E
//! that R calls, one per caller R; on a call of E's method inside R, for that pair. Its
//! command, `ctgls.generateIntegration`, runs the integration job in the background like a
//! unit run (the CLI's `ctgls generate --class R --callee E`).

use tower_lsp_server::ls_types::{CodeAction, CodeActionKind, Command, Uri};

use std::path::Path;

use javamodel::JavaModel;

use super::Coupled;
use crate::lsp::actions::cannot_act_yet;
use crate::lsp::protocol::{command, IntegrationArgument, GENERATE_INTEGRATION_TESTS_KIND};
use crate::lsp::results::words::simple_name;
use crate::lsp::workspace::primary_type;

/// What the actions are computed from: the file's path and text position, and its couplings.
pub struct IntegrationActionInput<'a> {
    /// The byte range of the request in the file's text.
    pub start: usize,
    pub end: usize,
    /// The file's primary type is a callee of these (its callers).
    pub callers: &'a [Coupled],
    /// The file's primary type calls these (its callees).
    pub callees: &'a [Coupled],
    pub only: Option<&'a [CodeActionKind]>,
    /// Why no run can happen at all (execution off, no JDK): the actions say it instead.
    pub unavailable: Option<&'a str>,
    /// The client shows disabled actions (else `ctgls.explain` says why).
    pub disabled_support: bool,
}

/// The actions at the request's range: on the class declaration (its name's line), one per
/// caller; on a call site of a callee, one for the pair.
pub fn list(input: &IntegrationActionInput) -> Vec<CodeAction> {
    let wanted = input.only.is_none_or(|only| {
        only.iter()
            .any(|kind| GENERATE_INTEGRATION_TESTS_KIND.starts_with(kind.as_str()))
    });
    if !wanted {
        return Vec::new();
    }
    let mut out = Vec::new();
    for coupled in input.callers {
        if on_declaration(
            &coupled.callee.model,
            &coupled.callee.path,
            input.start,
            input.end,
        ) {
            out.extend(action(input, coupled, String::new()));
        }
    }
    for coupled in input.callees {
        let at_call = coupled
            .coupling
            .sites
            .iter()
            .any(|site| input.start <= site.span.end_byte && input.end >= site.span.start_byte);
        if at_call {
            let suffix = format!(" (its calls of {})", simple_name(&coupled.callee.class));
            out.extend(action(input, coupled, suffix));
        }
    }
    out
}

/// Whether the byte range touches the line of the name of the file's primary type (where an
/// editor's cursor sits on `public class X {`).
pub fn on_declaration(model: &JavaModel, path: &Path, start: usize, end: usize) -> bool {
    let Some(name) = primary_type(model, Some(path)).and_then(|ty| ty.name_span.as_ref()) else {
        return false;
    };
    let text = model.text();
    let line_start = text[..name.start_byte].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[name.end_byte..]
        .find('\n')
        .map_or(text.len(), |i| name.end_byte + i);
    start <= line_end && end >= line_start
}

fn action(input: &IntegrationActionInput, coupled: &Coupled, suffix: String) -> Option<CodeAction> {
    let argument = IntegrationArgument {
        caller: coupled.caller.class.clone(),
        callee: coupled.callee.class.clone(),
        caller_uri: Uri::from_file_path(&coupled.caller.path)?,
        callee_uri: Uri::from_file_path(&coupled.callee.path)?,
    };
    let pairs = coupled.coupling.pairs().len();
    let title = format!(
        "Generate integration tests through {}{suffix}",
        simple_name(&coupled.caller.class)
    );
    let kind = CodeActionKind::new(GENERATE_INTEGRATION_TESTS_KIND);
    if let Some(reason) = input.unavailable {
        return Some(cannot_act_yet(
            title,
            kind,
            reason.to_string(),
            input.disabled_support,
        ));
    }
    Some(CodeAction {
        title: title.clone(),
        kind: Some(kind),
        command: Some(Command {
            title: format!("{title} ({pairs} coupled branches)"),
            command: command::GENERATE_INTEGRATION.to_string(),
            arguments: serde_json::to_value(argument).ok().map(|a| vec![a]),
        }),
        ..CodeAction::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::integration::fixture::{coupled, ACCOUNT, BANK};

    fn titles(
        at: usize,
        callers: &[Coupled],
        callees: &[Coupled],
        only: Option<&[CodeActionKind]>,
    ) -> Vec<String> {
        list(&IntegrationActionInput {
            start: at,
            end: at,
            callers,
            callees,
            only,
            unavailable: None,
            disabled_support: true,
        })
        .into_iter()
        .map(|a| a.title)
        .collect()
    }

    #[test]
    fn on_the_callee_declaration_and_on_a_call_site_only() {
        let coupled = vec![coupled()];
        // In Account's file: its declaration line, anywhere on it; not its body.
        let line = ACCOUNT.find("public class").unwrap();
        assert_eq!(
            titles(line, &coupled, &[], None),
            ["Generate integration tests through Bank"]
        );
        let body = ACCOUNT.find("amount > balance").unwrap();
        assert!(titles(body, &coupled, &[], None).is_empty());
        // In Bank's file: on the call, not on the condition before it.
        let call = BANK.find("withdraw(amount)").unwrap();
        assert_eq!(
            titles(call, &[], &coupled, None),
            ["Generate integration tests through Bank (its calls of Account)"]
        );
        let condition = BANK.find("amount <= 0").unwrap();
        assert!(titles(condition, &[], &coupled, None).is_empty());
        // Asked for quick fixes only: none; for source actions: offered.
        let quickfix = [CodeActionKind::QUICKFIX];
        assert!(titles(call, &[], &coupled, Some(&quickfix)).is_empty());
        let source = [CodeActionKind::SOURCE];
        assert_eq!(titles(call, &[], &coupled, Some(&source)).len(), 1);
    }

    #[test]
    fn the_command_names_both_classes_and_no_run_says_why() {
        let coupled = vec![coupled()];
        let call = BANK.find("withdraw(amount)").unwrap();
        let input = |unavailable| IntegrationActionInput {
            start: call,
            end: call,
            callers: &[],
            callees: &coupled,
            only: None,
            unavailable,
            disabled_support: true,
        };
        let action = list(&input(None)).remove(0);
        let command = action.command.unwrap();
        assert_eq!(command.command, "ctgls.generateIntegration");
        let argument: IntegrationArgument =
            serde_json::from_value(command.arguments.unwrap()[0].clone()).unwrap();
        assert_eq!(
            (argument.caller.as_str(), argument.callee.as_str()),
            ("p.Bank", "p.Account")
        );
        assert_eq!(argument.caller_uri.as_str(), "file:///p/Bank.java");

        let off = list(&input(Some("test generation is off"))).remove(0);
        assert_eq!(off.disabled.unwrap().reason, "test generation is off");
        assert!(off.command.is_none());
    }
}
