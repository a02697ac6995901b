//! Protocol extensions of this server. They are for debugging and tests, not for editors:
//! names and shapes may change without notice.
//!
//! - `ctgls/debugDocument` (request), params `{ "uri": string }`: the server's current view
//!   of an open document, `{ "uri", "version", "text", "model" }`, or `null` when it is not
//!   open. `model` is `javamodel::dump` of the Java model the server keeps up to date edit by
//!   edit, so tests can compare it with a model built from scratch from `text`.
//! - `ctgls/debugConfig` (request), no params: the configuration in effect, with the keys of
//!   the `ctgls` settings section.

use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::Uri;

pub const DEBUG_DOCUMENT: &str = "ctgls/debugDocument";
pub const DEBUG_CONFIG: &str = "ctgls/debugConfig";

#[derive(Debug, Deserialize)]
pub struct DebugDocumentParams {
    pub uri: Uri,
}

#[derive(Debug, Serialize)]
pub struct DebugDocument {
    pub uri: Uri,
    pub version: i32,
    pub text: String,
    pub model: String,
}
