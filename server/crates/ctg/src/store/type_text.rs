//! Reading back `JavaType`'s display form, the way the store writes types:
//! `int`, `com.x.Outer$Inner`, `java.util.Map<java.lang.String, int[]>`, `? extends T`, `T[]`.
//! The caller says which bare names are type variables.

use testcase::{JavaType, PrimitiveKind, WildcardBound};

/// Parses `text`; `is_var` names the type variables in scope.
pub(super) fn parse_type(text: &str, is_var: &dyn Fn(&str) -> bool) -> Result<JavaType, String> {
    let mut p = Parser {
        s: text,
        pos: 0,
        is_var,
    };
    let t = p.ty()?;
    if p.pos != text.len() {
        return Err(format!("unexpected '{}' in type '{text}'", &text[p.pos..]));
    }
    Ok(t)
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    is_var: &'a dyn Fn(&str) -> bool,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.s[self.pos..]
    }

    fn eat(&mut self, token: &str) -> bool {
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn ty(&mut self) -> Result<JavaType, String> {
        if self.eat("?") {
            let bound = if self.eat(" extends ") {
                Some(WildcardBound::Extends(Box::new(self.ty()?)))
            } else if self.eat(" super ") {
                Some(WildcardBound::Super(Box::new(self.ty()?)))
            } else {
                None
            };
            return Ok(JavaType::Wildcard(bound));
        }
        let name = self.name()?;
        let mut args = Vec::new();
        if self.eat("<") {
            loop {
                args.push(self.ty()?);
                if self.eat(">") {
                    break;
                }
                if !self.eat(", ") {
                    return Err(format!("expected ', ' or '>' in type '{}'", self.s));
                }
            }
        }
        let mut t = match PrimitiveKind::from_name(&name) {
            Some(k) if args.is_empty() => JavaType::Primitive(k),
            _ if args.is_empty() && (self.is_var)(&name) => JavaType::Var(name),
            _ => JavaType::Class { name, args },
        };
        while self.eat("[]") {
            t = JavaType::array_of(t);
        }
        Ok(t)
    }

    /// A binary name: anything up to a character of the type syntax.
    fn name(&mut self) -> Result<String, String> {
        let len = self
            .rest()
            .find(|c: char| matches!(c, '<' | '>' | ',' | '[' | ']' | '?') || c.is_whitespace())
            .unwrap_or(self.rest().len());
        if len == 0 {
            return Err(format!(
                "expected a name at byte {} of type '{}'",
                self.pos, self.s
            ));
        }
        let name = self.rest()[..len].to_string();
        self.pos += len;
        Ok(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(t: JavaType, vars: &[&str]) {
        let text = t.to_string();
        let back = parse_type(&text, &|n| vars.contains(&n)).unwrap();
        assert_eq!(back, t, "{text}");
    }

    #[test]
    fn display_forms_read_back() {
        use JavaType as J;
        round_trip(J::Primitive(PrimitiveKind::Char), &[]);
        round_trip(J::class("com.x.Outer$Inner"), &[]);
        round_trip(J::class("Default"), &[]);
        round_trip(J::class("ünï.Cödé$Ñ"), &[]);
        round_trip(
            J::array_of(J::array_of(J::generic(
                "java.util.Map",
                vec![J::string(), J::array_of(J::Primitive(PrimitiveKind::Int))],
            ))),
            &[],
        );
        round_trip(
            J::generic(
                "java.util.Map",
                vec![
                    J::Var("K".into()),
                    J::generic(
                        "java.util.List",
                        vec![J::Wildcard(Some(WildcardBound::Extends(Box::new(J::Var(
                            "V".into(),
                        )))))],
                    ),
                ],
            ),
            &["K", "V"],
        );
        round_trip(
            J::generic(
                "java.util.List",
                vec![J::Wildcard(Some(WildcardBound::Super(Box::new(
                    J::string(),
                ))))],
            ),
            &[],
        );
        round_trip(J::generic("java.util.List", vec![J::Wildcard(None)]), &[]);
        round_trip(J::array_of(J::Var("T".into())), &["T"]);
    }

    #[test]
    fn malformed_types_are_errors() {
        for bad in ["", "java.util.List<", "a b", "List<int,int>", "x[", "<x>"] {
            assert!(parse_type(bad, &|_| false).is_err(), "{bad}");
        }
    }
}
