//! The pass that runs after every build and update: javac binary names, member keys, compact
//! constructor signatures and the per-class compact decision indexes. Everything here depends
//! on more than one member, which is why incremental update cannot reuse it.

use std::collections::HashMap;

use crate::model::{JavaModel, MemberKind, Nesting, TypeDecl};

pub(crate) fn finish(model: &mut JavaModel) {
    let prefix = match &model.package {
        Some(p) if !p.name.is_empty() => format!("{}.", p.name),
        _ => String::new(),
    };
    for ty in &mut model.types {
        let binary = format!("{prefix}{}", ty.name);
        finish_type(ty, binary);
    }
}

fn finish_type(ty: &mut TypeDecl, binary: String) {
    ty.binary_name = binary;
    let binary = ty.binary_name.clone();

    for nested in &mut ty.nested_types {
        if nested.nesting == Nesting::Member {
            let name = format!("{binary}${}", nested.name);
            finish_type(nested, name);
        }
    }

    // javac: `Outer$<n><Name>`, n counting from 1 per (enclosing class, simple name) in
    // attribution order; anonymous classes have an empty simple name.
    let mut locals: Vec<&mut TypeDecl> = ty
        .nested_types
        .iter_mut()
        .filter(|t| t.nesting == Nesting::Anonymous)
        .chain(ty.members.iter_mut().flat_map(|m| m.local_types.iter_mut()))
        .collect();
    locals.sort_by(|a, b| a.order_key.cmp(&b.order_key));
    let mut counters: HashMap<String, u32> = HashMap::new();
    for local in locals {
        let counter = counters.entry(local.name.clone()).or_insert(1);
        let name = format!("{binary}${}{}", counter, local.name);
        *counter += 1;
        finish_type(local, name);
    }

    let mut next_index = 0u32;
    for member in &mut ty.members {
        if member.kind == MemberKind::CompactConstructor {
            member.params = ty.record_components.clone();
            member.signature = format!(
                "<init>({})",
                member
                    .params
                    .iter()
                    .map(|p| p.signature_type.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            );
        }
        member.key = format!("{binary}#{}", member.signature);
        if let Some(body) = &mut member.body {
            for decision in &mut body.decisions {
                decision.class_index = if decision.constant.is_none() {
                    next_index += 1;
                    Some(next_index - 1)
                } else {
                    None
                };
            }
        }
    }
}
