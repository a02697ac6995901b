//! Compiling the classes under test instrumented, in the worker, with the fallback loop of
//! DESIGN decision 1: a probe javac rejects falls back site by site, and the job fails only
//! when the original source does not compile.
//!
//! Each round compiles the request's roots and what they reach (all files when the request names
//! no roots), the files declaring classes under test from their instrumented text. javac's errors are mapped back to probe sites through the instrumented
//! text (the error's character range, else its line) and those sites move one form down their
//! ladder (`cmpInt` → `cmpLong` → ... → outcome-only `branch` → no probe). An error no site
//! explains escalates the file: first the possibly-constant conditions of the member with the
//! error lose their probes (a wrapped constant changes reachability and definite assignment,
//! which javac reports elsewhere), then the whole file gets outcome-only probes, then it is
//! compiled uninstrumented.

use std::collections::{BTreeMap, HashMap, HashSet};

use javamodel::instrument::{
    instrument, Downgrade, Fallback, FallbackReason, InstrumentMode, InstrumentOptions,
    Instrumented, ProbeLevel, ProbeTable, SiteId,
};
use javamodel::JavaModel;
use jvm::{CompileRequest, Diagnostic, DiagnosticKind, JvmError, SourceFile, Supervisor, UnitId};

mod learned;

/// Compile rounds before every instrumented file is compiled uninstrumented.
const MAX_ROUNDS: u32 = 12;

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The project does not compile even without instrumentation; javac's diagnostics, with
    /// their positions in the original sources.
    #[error("the project does not compile ({} errors)", errors(.diagnostics))]
    DoesNotCompile { diagnostics: Vec<Diagnostic> },
    /// No source file declares this class.
    #[error("no source file declares class {0}")]
    UnknownClass(String),
    #[error(transparent)]
    Jvm(#[from] JvmError),
}

fn errors(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::Error)
        .count()
}

/// How much of a file ended up instrumented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileLevel {
    Full,
    OutcomeOnly,
    Uninstrumented,
}

/// One source file that declares classes under test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstrumentedFile {
    /// [`SourceFile::path`].
    pub path: String,
    /// The top-level classes instrumented (binary names).
    pub classes: Vec<String>,
    pub level: FileLevel,
    /// Probe ids of the file; empty when it is uninstrumented.
    pub probes: ProbeTable,
    /// Every probe that measures less than its construct allows, with the reason.
    pub fallbacks: Vec<Fallback>,
    /// The text that was compiled.
    pub source: String,
}

/// The result of [`compile_instrumented`].
#[derive(Debug, Clone)]
pub struct CompiledUnit {
    pub unit: UnitId,
    pub files: Vec<InstrumentedFile>,
    /// Compile requests made (instrumented rounds plus the original, when it was needed).
    pub rounds: u32,
    /// Warnings of the final compile.
    pub diagnostics: Vec<Diagnostic>,
    /// The sources whose classes the unit holds ([`jvm::CompileResult::files`]).
    pub closure: Vec<String>,
    /// The request's roots ([`CompileRequest::roots`]; every source when it named none).
    pub roots: Vec<String>,
}

impl CompiledUnit {
    pub fn probe_tables(&self) -> impl Iterator<Item = &ProbeTable> {
        self.files.iter().map(|f| &f.probes)
    }

    pub fn fallbacks(&self) -> impl Iterator<Item = &Fallback> {
        self.files.iter().flat_map(|f| f.fallbacks.iter())
    }

    /// `sources` with the texts this unit compiled: the instrumented ones where instrumented.
    pub fn compiled_sources(&self, sources: &[SourceFile]) -> Vec<SourceFile> {
        let mut out = sources.to_vec();
        for file in self
            .files
            .iter()
            .filter(|f| f.level != FileLevel::Uninstrumented)
        {
            if let Some(source) = out.iter_mut().find(|s| s.path == file.path) {
                source.instrumented = Some(file.source.clone());
            }
        }
        out
    }

    /// The file whose probes registered under `key` (a trace's file key).
    pub fn file_by_key(&self, key: &str) -> Option<&InstrumentedFile> {
        self.files.iter().find(|f| f.probes.key == key)
    }
}

/// The state of one file across rounds.
struct FileJob {
    index: usize,
    text: String,
    model: JavaModel,
    options: InstrumentOptions,
    level: FileLevel,
    /// The escalation step for possibly-constant conditions has been used.
    constants_off: bool,
    /// Why the file was escalated past full instrumentation.
    escalation: Option<String>,
    current: Option<Instrumented>,
}

impl FileJob {
    fn instrument(&mut self) {
        self.options.mode = match self.level {
            FileLevel::OutcomeOnly => InstrumentMode::OutcomeOnly,
            _ => InstrumentMode::Full,
        };
        self.current = (self.level != FileLevel::Uninstrumented).then(|| {
            // Parsing again is cheaper than keeping trees of every file alive across rounds.
            let tree = syntax::parse_java(&self.text, None);
            instrument(&self.text, &tree, &self.model, &self.options)
        });
    }

    fn downgrade(&mut self, site: SiteId, message: &str) {
        let entry = self
            .options
            .downgrades
            .entry(site)
            .or_insert_with(|| Downgrade {
                steps: 0,
                reason: FallbackReason::CompileError(message.to_string()),
            });
        entry.steps = entry.steps.saturating_add(1);
        entry.reason = FallbackReason::CompileError(message.to_string());
    }

    /// Moves the file one escalation step on; `member` is where the unexplained error is.
    fn escalate(&mut self, member: Option<&str>, message: &str) {
        if self.level == FileLevel::Full && !self.constants_off {
            self.constants_off = true;
            let maybe_constant: Vec<SiteId> = self
                .current
                .iter()
                .flat_map(|i| i.sites.iter())
                .filter(|s| {
                    s.maybe_constant && member.is_none_or(|m| s.member.as_deref() == Some(m))
                })
                .map(|s| s.id.clone())
                .collect();
            if !maybe_constant.is_empty() {
                for site in maybe_constant {
                    self.options.downgrades.insert(
                        site,
                        Downgrade {
                            steps: u8::MAX,
                            reason: FallbackReason::CompileError(format!(
                                "possibly constant condition; {message}"
                            )),
                        },
                    );
                }
                return;
            }
        }
        self.escalation = Some(message.to_string());
        self.level = match self.level {
            FileLevel::Full => FileLevel::OutcomeOnly,
            _ => FileLevel::Uninstrumented,
        };
    }

    /// The member containing 1-based `line`, by its key.
    fn member_at_line(&self, line: u32) -> Option<String> {
        let row = line.checked_sub(1)? as usize;
        self.model
            .all_types()
            .into_iter()
            .flat_map(|t| t.members.iter())
            .filter(|m| m.span.start.row <= row && row <= m.span.end.row)
            .min_by_key(|m| m.span.end_byte - m.span.start_byte)
            .map(|m| m.key.clone())
    }

    fn result(&self, sources: &[SourceFile]) -> InstrumentedFile {
        let classes = self.options.types.clone();
        match &self.current {
            Some(done) => {
                let mut fallbacks = done.fallbacks.clone();
                if let (FileLevel::OutcomeOnly, Some(why)) = (self.level, &self.escalation) {
                    for f in &mut fallbacks {
                        if f.reason == FallbackReason::FileOutcomeOnly {
                            f.reason = FallbackReason::CompileError(why.clone());
                        }
                    }
                }
                InstrumentedFile {
                    path: sources[self.index].path.clone(),
                    classes,
                    level: self.level,
                    probes: done.probes.clone(),
                    fallbacks,
                    source: done.source.clone(),
                }
            }
            None => {
                let why = self
                    .escalation
                    .clone()
                    .unwrap_or_else(|| "left uninstrumented".to_string());
                // Nothing dropped silently: every goal of the file is listed without a probe.
                let fallbacks = self
                    .model
                    .decisions()
                    .into_iter()
                    .filter(|(ty, _, d)| {
                        d.constant.is_none()
                            && classes.iter().any(|c| {
                                ty.binary_name == *c
                                    || ty
                                        .binary_name
                                        .strip_prefix(c.as_str())
                                        .is_some_and(|r| r.starts_with('$'))
                            })
                    })
                    .map(|(_, member, d)| Fallback {
                        site: SiteId::Decision(member.decision_key(d)),
                        outcome: None,
                        line: d.span.start.row as u32 + 1,
                        level: ProbeLevel::None,
                        reason: FallbackReason::CompileError(why.clone()),
                    })
                    .collect();
                InstrumentedFile {
                    path: sources[self.index].path.clone(),
                    classes,
                    level: FileLevel::Uninstrumented,
                    probes: ProbeTable::default(),
                    fallbacks,
                    source: self.text.clone(),
                }
            }
        }
    }
}

/// Compiles `request`'s sources with the files declaring `classes_under_test` (binary names)
/// instrumented, falling back site by site until javac accepts them (see the module doc).
/// Fails only when the original sources do not compile, with the original diagnostics.
pub fn compile_instrumented(
    supervisor: &mut Supervisor,
    request: &CompileRequest,
    classes_under_test: &[String],
) -> Result<CompiledUnit, CompileError> {
    compile_instrumented_with(supervisor, request, classes_under_test, false)
}

/// [`compile_instrumented`], with the files' mutants compiled in too when `mutants` is set
/// (mutant schemata; docs/instrumentation.md, "Mutants"): each file's [`ProbeTable::mutants`]
/// lists those javac accepted, a mutant it rejects falls back (is left out) like a probe.
pub fn compile_instrumented_with(
    supervisor: &mut Supervisor,
    request: &CompileRequest,
    classes_under_test: &[String],
    mutants: bool,
) -> Result<CompiledUnit, CompileError> {
    let mut jobs = select_files(&request.sources, classes_under_test)?;
    let level = crate::levels::java_level(&request.options);
    for job in &mut jobs {
        job.options.mutants = mutants;
        job.options.java_level = level;
    }
    // Where this process compiled the same files instrumented the same way before (the job,
    // then emission's mutation analysis and slimming), the rounds javac already rejected are
    // not run again: each is a javac run of seconds on a real class.
    let context = learned::context(request);
    let mut original_compiles = learned::recall(context, &mut jobs);
    let mut rounds = 0;
    for round in 0..=MAX_ROUNDS {
        if round == MAX_ROUNDS {
            for job in &mut jobs {
                job.escalation
                    .get_or_insert_with(|| format!("no probes compiled after {MAX_ROUNDS} rounds"));
                job.level = FileLevel::Uninstrumented;
            }
        }
        for job in &mut jobs {
            job.instrument();
        }
        let mut sources = request.sources.clone();
        for job in &jobs {
            sources[job.index].instrumented = job.current.as_ref().map(|i| i.source.clone());
        }
        let attempt = CompileRequest {
            sources,
            classpath: request.classpath.clone(),
            options: request.options.clone(),
            roots: request.roots.clone(),
        };
        rounds += 1;
        let result = supervisor.compile(&attempt)?;
        if let Some(error) = &result.cache_error {
            tracing::warn!("{error}");
        }
        tracing::debug!(
            round,
            compiled = result.compiled_files,
            reused = result.reused_files,
            from_disk = result.cache_loaded_files,
            "instrumented compile"
        );
        if let Some(unit) = result.unit {
            tracing::debug!(rounds, "instrumented classes compiled");
            learned::remember(context, &jobs);
            return Ok(CompiledUnit {
                unit,
                files: jobs.iter().map(|j| j.result(&request.sources)).collect(),
                rounds,
                diagnostics: result.diagnostics,
                closure: result.files,
                roots: request
                    .roots
                    .clone()
                    .unwrap_or_else(|| request.sources.iter().map(|s| s.path.clone()).collect()),
            });
        }
        if !original_compiles {
            let mut original = request.clone();
            for source in &mut original.sources {
                source.instrumented = None;
            }
            rounds += 1;
            let check = supervisor.compile(&original)?;
            match check.unit {
                Some(unit) => {
                    supervisor.release(unit);
                    original_compiles = true;
                }
                None => {
                    return Err(CompileError::DoesNotCompile {
                        diagnostics: check.diagnostics,
                    })
                }
            }
        }
        fall_back(&mut jobs, &result.diagnostics);
    }
    // Every file was compiled uninstrumented in the last round and that failed: only the
    // original text is left, which compiles, so this is a worker inconsistency.
    Err(CompileError::Jvm(JvmError::Protocol(
        "uninstrumented sources failed to compile after the original compiled".into(),
    )))
}

/// Finds the files declaring the classes under test and parses them.
fn select_files(sources: &[SourceFile], classes: &[String]) -> Result<Vec<FileJob>, CompileError> {
    let mut by_file: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut models: HashMap<usize, JavaModel> = HashMap::new();
    for class in classes {
        let top = class.split('$').next().unwrap_or(class);
        let simple = top.rsplit('.').next().unwrap_or(top);
        let mut found = None;
        for (index, source) in sources.iter().enumerate() {
            if !source.text.contains(simple) {
                continue;
            }
            let model = models.entry(index).or_insert_with(|| {
                let tree = syntax::parse_java(&source.text, None);
                JavaModel::build(&source.text, &tree)
            });
            if model.types.iter().any(|t| t.binary_name == top) {
                found = Some(index);
                break;
            }
        }
        let index = found.ok_or_else(|| CompileError::UnknownClass(class.clone()))?;
        let names = by_file.entry(index).or_default();
        if !names.iter().any(|n| n == top) {
            names.push(top.to_string());
        }
    }
    Ok(by_file
        .into_iter()
        .map(|(index, types)| {
            let model = models.remove(&index).expect("parsed above");
            FileJob {
                index,
                text: sources[index].text.clone(),
                model,
                options: InstrumentOptions {
                    types,
                    path: Some(sources[index].path.clone()),
                    ..InstrumentOptions::default()
                },
                level: FileLevel::Full,
                constants_off: false,
                escalation: None,
                current: None,
            }
        })
        .collect())
}

/// Applies one round's errors: site downgrades, else escalations (at most one per file).
fn fall_back(jobs: &mut [FileJob], diagnostics: &[Diagnostic]) {
    let mut escalated = vec![false; jobs.len()];
    // One step per site and round: javac may report one bad probe twice, and skipping a
    // numeric rung could pick a probe that rounds (cmpFloat for two longs).
    let mut moved: Vec<HashSet<SiteId>> = vec![HashSet::new(); jobs.len()];
    let mut changed = false;
    for diagnostic in diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::Error)
    {
        let message = diagnostic.message.lines().next().unwrap_or("").to_string();
        let job = diagnostic.file.as_deref().and_then(|file| {
            jobs.iter()
                .position(|j| j.options.path.as_deref() == Some(file))
        });
        let Some(j) = job.filter(|&j| jobs[j].current.is_some()) else {
            // An error outside the instrumented files (a constant another file relied on):
            // which file caused it is unknown, so all of them move on.
            for (k, job) in jobs.iter_mut().enumerate() {
                if !escalated[k] && job.level != FileLevel::Uninstrumented {
                    job.escalate(None, &message);
                    escalated[k] = true;
                    changed = true;
                }
            }
            continue;
        };
        let job = &mut jobs[j];
        let done = job.current.as_ref().expect("instrumented");
        let range = diagnostic_range(&done.source, diagnostic);
        let mut sites: Vec<SiteId> = range
            .and_then(|r| done.site_at(r))
            .map(|s| vec![s.id.clone()])
            .unwrap_or_default();
        if sites.is_empty() {
            if let Some(line) = diagnostic.line {
                sites = done
                    .sites
                    .iter()
                    .filter(|s| s.lines.0 == line)
                    .filter(|s| !matches!(s.id, SiteId::Line(_)))
                    .map(|s| s.id.clone())
                    .collect();
            }
        }
        if sites.is_empty() {
            if !escalated[j] {
                let member = diagnostic.line.and_then(|l| job.member_at_line(l));
                job.escalate(member.as_deref(), &message);
                escalated[j] = true;
                changed = true;
            }
            continue;
        }
        for site in sites {
            if moved[j].insert(site.clone()) {
                tracing::debug!(%site, %message, "probe falls back");
                job.downgrade(site, &message);
            }
            changed = true;
        }
    }
    if !changed {
        // Errors without a file position in an instrumented file: escalate them all.
        for job in jobs.iter_mut() {
            job.escalate(None, "unexplained compile error");
        }
    }
}

/// The byte range of `source` a diagnostic points at: javac's character offsets (UTF-16
/// units), else its line and column.
fn diagnostic_range(source: &str, d: &Diagnostic) -> Option<std::ops::Range<usize>> {
    if let Some(start) = d.start {
        let end = d.end.unwrap_or(start).max(start);
        return Some(byte_offset(source, start)?..byte_offset(source, end)?);
    }
    let (line, column) = (d.line?, d.column?);
    let line_start = syntax::text_line(source, line.checked_sub(1)? as usize)?.start;
    let at = source[line_start..]
        .char_indices()
        .nth(column.saturating_sub(1) as usize)
        .map_or(source.len(), |(i, _)| line_start + i);
    Some(at..at)
}

fn byte_offset(source: &str, utf16: u64) -> Option<usize> {
    let mut units = 0u64;
    for (i, c) in source.char_indices() {
        if units >= utf16 {
            return Some(i);
        }
        units += c.len_utf16() as u64;
    }
    (units >= utf16).then_some(source.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_offsets_map_to_bytes() {
        let s = "aé😀b";
        assert_eq!(byte_offset(s, 0), Some(0));
        assert_eq!(byte_offset(s, 1), Some(1));
        assert_eq!(byte_offset(s, 2), Some(3));
        assert_eq!(byte_offset(s, 4), Some(7));
        assert_eq!(byte_offset(s, 5), Some(8));
        assert_eq!(byte_offset(s, 6), None);
    }

    #[test]
    fn line_and_column_map_to_bytes() {
        let d = Diagnostic {
            kind: DiagnosticKind::Error,
            message: String::new(),
            file: None,
            line: Some(2),
            column: Some(3),
            start: None,
            end: None,
            code: None,
            instrumented: true,
        };
        assert_eq!(diagnostic_range("ab\ncdef\n", &d), Some(5..5));
        // javac's lines: a lone '\r' ends one too (JLS 3.4).
        assert_eq!(diagnostic_range("ab\rcdef\n", &d), Some(5..5));
        assert_eq!(diagnostic_range("ab\r\ncdef\n", &d), Some(6..6));
        let first = Diagnostic {
            line: Some(1),
            ..d.clone()
        };
        assert_eq!(diagnostic_range("ab\ncdef\n", &first), Some(2..2));
    }
}
