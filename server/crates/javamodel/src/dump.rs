//! The stable, human-readable text form of a model, for snapshot tests and `ctgls model`.
//!
//! Ranges are `line:col-line:col`, 1-based lines and 1-based columns counted in **characters**
//! (Unicode scalar values), end exclusive. Decisions print as
//! `B<ordinal> #<class index> <kind>[(&&|||)] <range> <shape> [<source>] <outcomes> <- <deps>`,
//! where deps are the goals the decision's goals are control dependent on, `|`-separated
//! (any one of them activates the goal), and `entry` means "member entered".

use std::fmt::Write;

use crate::branches::{ControlDep, Decision, LogicalOp};
use crate::cfg::CfgOrigin;
use crate::model::{JavaModel, Member, MemberKind, Modifiers, Nesting, Span, TypeDecl, TypeKind};

pub fn dump(model: &JavaModel) -> String {
    let d = Dumper { text: &model.text };
    let mut out = String::new();
    if let Some(package) = &model.package {
        let _ = writeln!(out, "package {} {}", package.name, d.range(&package.span));
    }
    for import in &model.imports {
        let _ = writeln!(
            out,
            "import {}{}{} {}",
            if import.is_static { "static " } else { "" },
            import.path,
            if import.on_demand { ".*" } else { "" },
            d.range(&import.span)
        );
    }
    for ty in model.all_types() {
        out.push('\n');
        d.type_decl(&mut out, ty);
    }
    if !model.problems.is_empty() {
        out.push_str("\nproblems\n");
        for problem in &model.problems {
            let _ = writeln!(out, "  {} {}", d.range(&problem.span), problem.message);
        }
    }
    out
}

struct Dumper<'a> {
    text: &'a str,
}

const MAX_SNIPPET: usize = 60;

impl Dumper<'_> {
    fn column(&self, byte: usize, byte_column: usize) -> usize {
        let line_start = byte.saturating_sub(byte_column);
        self.text
            .get(line_start..byte)
            .map_or(byte_column, |s| s.chars().count())
            + 1
    }

    fn range(&self, span: &Span) -> String {
        format!(
            "{}:{}-{}:{}",
            span.start.row + 1,
            self.column(span.start_byte, span.start.column),
            span.end.row + 1,
            self.column(span.end_byte, span.end.column)
        )
    }

    fn snippet(&self, span: &Span) -> String {
        let text = self.text.get(span.start_byte..span.end_byte).unwrap_or("");
        let collapsed = crate::text::collapse_ws(text);
        if collapsed.chars().count() > MAX_SNIPPET {
            let mut short: String = collapsed.chars().take(MAX_SNIPPET - 3).collect();
            short.push_str("...");
            short
        } else {
            collapsed
        }
    }

    fn type_decl(&self, out: &mut String, ty: &TypeDecl) {
        let kind = match ty.kind {
            TypeKind::Class => "class",
            TypeKind::Interface => "interface",
            TypeKind::Enum => "enum",
            TypeKind::Record => "record",
            TypeKind::Annotation => "@interface",
        };
        let nesting = match ty.nesting {
            Nesting::TopLevel => "",
            Nesting::Member => "member ",
            Nesting::Local => "local ",
            Nesting::Anonymous => "anonymous ",
        };
        let _ = writeln!(
            out,
            "{nesting}{kind} {} {}",
            ty.binary_name,
            self.range(&ty.span)
        );
        modifiers_line(out, "  ", &ty.modifiers);
        list_line(out, "  type-params", &ty.type_params, "<", ">");
        list_line(out, "  extends", &ty.extends, "", "");
        list_line(out, "  implements", &ty.implements, "", "");
        list_line(out, "  permits", &ty.permits, "", "");
        for component in &ty.record_components {
            let _ = writeln!(
                out,
                "  component {}{} {} {}",
                modifiers_prefix(&component.modifiers),
                component.type_text,
                component.name,
                self.range(&component.span)
            );
        }
        for constant in &ty.enum_constants {
            let _ = writeln!(
                out,
                "  constant {}{}{} {}",
                constant.name,
                constant.arguments.as_deref().unwrap_or(""),
                if constant.has_body { " {body}" } else { "" },
                self.range(&constant.span)
            );
        }
        for field in &ty.fields {
            let _ = writeln!(
                out,
                "  field {}{} {}{} {}",
                modifiers_prefix(&field.modifiers),
                field.type_text,
                field.name,
                if field.has_initializer { " = ..." } else { "" },
                self.range(&field.span)
            );
        }
        for member in &ty.members {
            self.member(out, member);
        }
    }

    fn member(&self, out: &mut String, member: &Member) {
        let kind = match member.kind {
            MemberKind::Method => "method",
            MemberKind::Constructor => "constructor",
            MemberKind::CompactConstructor => "compact-constructor",
            MemberKind::StaticInitializer | MemberKind::InstanceInitializer => "initializer",
            MemberKind::AnnotationElement => "element",
        };
        let ranges = if matches!(
            member.kind,
            MemberKind::StaticInitializer | MemberKind::InstanceInitializer
        ) {
            member
                .pieces
                .iter()
                .map(|p| self.range(p))
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            self.range(&member.span)
        };
        let _ = writeln!(out, "  {kind} {} {ranges}", member.key);
        modifiers_line(out, "    ", &member.modifiers);
        list_line(out, "    type-params", &member.type_params, "<", ">");
        if let Some(ret) = &member.return_type {
            let _ = writeln!(out, "    returns {ret}");
        }
        if !member.params.is_empty() {
            let params: Vec<String> = member
                .params
                .iter()
                .map(|p| {
                    format!(
                        "{}{} {}",
                        modifiers_prefix(&p.modifiers),
                        p.type_text,
                        p.name
                    )
                })
                .collect();
            let _ = writeln!(out, "    params {}", params.join(", "));
        }
        list_line(out, "    throws", &member.throws, "", "");
        if let Some(value) = &member.default_value {
            let _ = writeln!(out, "    default {value}");
        }
        let Some(body) = &member.body else {
            let _ = writeln!(out, "    no body");
            return;
        };
        for (index, cfg) in body.cfgs.iter().enumerate().skip(1) {
            if let CfgOrigin::Lambda {
                span,
                parent,
                creation_node,
            } = cfg.origin
            {
                let creator = &body.cfgs[parent as usize].nodes[creation_node as usize];
                let _ = writeln!(
                    out,
                    "    lambda L{index} {}{} <- {}",
                    self.range(&span),
                    if parent > 0 {
                        format!(" in L{parent}")
                    } else {
                        String::new()
                    },
                    deps_text(&creator.control_deps)
                );
            }
        }
        for decision in &body.decisions {
            self.decision(out, decision);
        }
    }

    fn decision(&self, out: &mut String, d: &Decision) {
        let index = d.class_index.map_or("-".to_string(), |i| format!("#{i}"));
        let op = match d.operand_of {
            Some(LogicalOp::And) => "(&&)",
            Some(LogicalOp::Or) => "(||)",
            None => "",
        };
        let mut line = format!(
            "    B{} {index} {}{op} {} {} [{}]",
            d.ordinal,
            d.kind.as_str(),
            self.range(&d.span),
            d.shape.tag(),
            self.snippet(&d.span)
        );
        if let Some(location) = d.location {
            if location.cfg > 0 {
                let _ = write!(line, " in L{}", location.cfg);
            }
        }
        match d.constant {
            Some(value) => {
                let _ = write!(line, " constant {value}");
            }
            None => {
                for outcome in &d.outcomes {
                    let _ = write!(line, " {outcome}");
                }
                let deps = if d.reachable {
                    deps_text(&d.control_deps)
                } else {
                    "unreachable".to_string()
                };
                let _ = write!(line, " <- {deps}");
            }
        }
        out.push_str(&line);
        out.push('\n');
        for (i, case) in d.cases.iter().enumerate() {
            let place = match &case.span {
                Some(span) => self.range(span),
                None => "implicit".to_string(),
            };
            let _ = writeln!(out, "      C{i} {} {place}", case.label);
        }
    }
}

fn deps_text(deps: &[ControlDep]) -> String {
    if deps.is_empty() {
        return "unreachable".to_string();
    }
    deps.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(" | ")
}

fn modifiers_prefix(m: &Modifiers) -> String {
    let mut out = String::new();
    for a in &m.annotations {
        out.push_str(a);
        out.push(' ');
    }
    for k in &m.keywords {
        out.push_str(k);
        out.push(' ');
    }
    out
}

fn modifiers_line(out: &mut String, indent: &str, m: &Modifiers) {
    let text = modifiers_prefix(m);
    if !text.is_empty() {
        let _ = writeln!(out, "{indent}modifiers {}", text.trim_end());
    }
}

fn list_line(out: &mut String, head: &str, items: &[String], open: &str, close: &str) {
    if !items.is_empty() {
        let _ = writeln!(out, "{head} {open}{}{close}", items.join(", "));
    }
}
