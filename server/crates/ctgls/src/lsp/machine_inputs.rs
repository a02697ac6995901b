//! The `nondeterministic-input` diagnostics: the calls through which a class reads the machine
//! it runs on (environment variables, the user's name and home, the host's name, files named by
//! an absolute path), found in the syntax tree. ctgls never asserts what such a call returned
//! (emission observes every test a second time as another user on another host, and reads are
//! confined to the project), so the diagnostic tells the developer why a value they expected
//! in the tests is a comment, and names the line that read it.

use syntax::tree_sitter::Node;

use crate::open_file::OpenFile;

/// One call that reads the machine: its byte range and what it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineInput {
    pub bytes: std::ops::Range<usize>,
    pub what: String,
}

/// System properties whose values come from the machine or the user.
const MACHINE_PROPERTIES: &[&str] = &[
    "user.name",
    "user.home",
    "user.dir",
    "java.io.tmpdir",
    "os.name",
    "os.version",
    "os.arch",
    "java.home",
    "java.class.path",
];

/// `Files` methods that read a file's content.
const FILE_READS: &[&str] = &[
    "readString",
    "readAllBytes",
    "readAllLines",
    "lines",
    "newBufferedReader",
    "newInputStream",
];

/// Every call in `file` that reads the machine, in source order.
pub fn find(file: &OpenFile) -> Vec<MachineInput> {
    let document = file.document();
    let text = document.text();
    let mut out = Vec::new();
    let mut stack = vec![document.tree().root_node()];
    while let Some(node) = stack.pop() {
        if let Some(what) = classify(node, &text) {
            out.push(MachineInput {
                bytes: node.start_byte()..node.end_byte(),
                what,
            });
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            stack.push(child);
        }
    }
    out.sort_by_key(|input| input.bytes.start);
    out
}

fn classify(node: Node, text: &str) -> Option<String> {
    let source = |n: Node| text.get(n.start_byte()..n.end_byte()).unwrap_or("");
    match node.kind() {
        "method_invocation" => {
            let name = source(node.child_by_field_name("name")?);
            let object = node.child_by_field_name("object").map(source).unwrap_or("");
            let first = first_argument(node);
            let simple_object = object.rsplit('.').next().unwrap_or(object);
            match (simple_object, name) {
                ("System", "getenv") => Some(match first.map(source) {
                    Some(arg) => format!("the environment variable {arg}"),
                    None => "the whole environment".to_string(),
                }),
                ("System", "getProperty") => {
                    let key = first.map(source).unwrap_or("");
                    let unquoted = key.trim_matches('"');
                    MACHINE_PROPERTIES
                        .contains(&unquoted)
                        .then(|| format!("the system property {key}"))
                }
                ("InetAddress", "getLocalHost") => Some("the host's name and address".into()),
                ("Files", method) if FILE_READS.contains(&method) => {
                    absolute_path(first?, text).map(|path| format!("the file {path}"))
                }
                ("Path" | "Paths", "of" | "get") => None,
                _ => None,
            }
        }
        "object_creation_expression" => {
            let ty = source(node.child_by_field_name("type")?);
            let simple = ty.rsplit('.').next().unwrap_or(ty);
            if matches!(simple, "FileReader" | "FileInputStream" | "Scanner") {
                let path = absolute_path(first_argument(node)?, text)?;
                Some(format!("the file {path}"))
            } else {
                None
            }
        }
        _ => None,
    }
}

fn first_argument(call: Node) -> Option<Node> {
    let arguments = call.child_by_field_name("arguments")?;
    let mut cursor = arguments.walk();
    let first = arguments.named_children(&mut cursor).next();
    first
}

/// The absolute path a file-reading call is given as a literal: `"/etc/hostname"`,
/// `Paths.get("/etc/hostname")`, `new File("/etc/hostname")`, `Path.of("C:\\...")`.
fn absolute_path(argument: Node, text: &str) -> Option<String> {
    let source = |n: Node| text.get(n.start_byte()..n.end_byte()).unwrap_or("");
    let literal = match argument.kind() {
        "string_literal" => argument,
        "method_invocation" | "object_creation_expression" => {
            let inner = first_argument(argument)?;
            (inner.kind() == "string_literal").then_some(inner)?
        }
        _ => return None,
    };
    let value = source(literal).trim_matches('"');
    let absolute = value.starts_with('/')
        || value.starts_with('~')
        || value.get(1..3).is_some_and(|s| s == ":\\" || s == ":/");
    absolute.then(|| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whats(source: &str) -> Vec<(String, String)> {
        let file = OpenFile::open(source, 1);
        find(&file)
            .into_iter()
            .map(|i| (source[i.bytes].to_string(), i.what))
            .collect()
    }

    #[test]
    fn calls_that_read_the_machine_are_found_and_others_are_not() {
        let found = whats(
            "class S {\n\
             String a() { return \"Bearer \" + System.getenv(\"API_TOKEN\"); }\n\
             String b() { return System.getProperty(\"user.name\"); }\n\
             String c() { return System.getProperty(\"app.mode\"); }\n\
             String d() throws Exception { return java.net.InetAddress.getLocalHost().getHostName(); }\n\
             String e() throws Exception { return Files.readString(Paths.get(\"/etc/hostname\")); }\n\
             String f() throws Exception { return Files.readString(Paths.get(\"config.txt\")); }\n\
             Object g() throws Exception { return new FileReader(\"/home/me/.netrc\"); }\n\
             String h() { return \"System.getenv(\\\"X\\\")\"; } // System.getenv(\"Y\")\n\
             java.util.Map<String, String> i() { return System.getenv(); }\n\
             }\n",
        );
        let whats: Vec<&str> = found.iter().map(|(_, w)| w.as_str()).collect();
        assert_eq!(
            whats,
            [
                "the environment variable \"API_TOKEN\"",
                "the system property \"user.name\"",
                "the host's name and address",
                "the file /etc/hostname",
                "the file /home/me/.netrc",
                "the whole environment",
            ],
            "{found:?}"
        );
        assert_eq!(found[0].0, "System.getenv(\"API_TOKEN\")");
    }
}
