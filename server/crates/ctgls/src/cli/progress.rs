//! Progress of `ctgls generate` on stderr. On a terminal: one bar per class being generated
//! (several at once with `--jobs`) under a bar for the whole run (indicatif); elsewhere (CI
//! logs): a line per phase and at most one progress line every two seconds per class. With
//! `--quiet`: nothing but errors and warnings.

use std::io::{IsTerminal, Write as _};
use std::time::{Duration, Instant};

use ctg::job::{GenerationObserver, Phase};
use ctg::pipeline::{ClassOutcome, PipelineError, Verification};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use search::{Criterion, Progress};

/// The progress display of one run: where class lines go.
pub struct ProgressHub {
    multi: Option<MultiProgress>,
    overall: Option<ProgressBar>,
    quiet: bool,
}

impl ProgressHub {
    /// `classes` is how many will run (an overall bar when more than one).
    pub fn new(classes: usize, quiet: bool) -> ProgressHub {
        let tty = std::io::stderr().is_terminal();
        let multi =
            (tty && !quiet).then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        let overall = multi.as_ref().filter(|_| classes > 1).map(|multi| {
            let bar = multi.add(ProgressBar::new(classes as u64));
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:>12} [{bar:30}] {pos}/{len} classes, {elapsed}",
                )
                .expect("a valid template")
                .progress_chars("#>."),
            );
            bar.set_prefix("project");
            bar
        });
        ProgressHub {
            multi,
            overall,
            quiet,
        }
    }

    /// The progress of one class.
    pub fn class(&self, class: &str) -> ProgressLine {
        let simple = class.rsplit('.').next().unwrap_or(class).to_string();
        let bar = self.multi.as_ref().map(|multi| {
            let bar = multi.add(ProgressBar::new_spinner());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        ProgressLine {
            class: simple,
            bar,
            multi: self.multi.clone(),
            overall: self.overall.clone(),
            quiet: self.quiet,
            started: Instant::now(),
            phase: Phase::Reading,
            last_line: None,
        }
    }

    /// A line above the bars (or on stderr).
    pub fn note(&self, text: &str) {
        if !self.quiet {
            print_line(self.multi.as_ref(), text);
        }
    }

    pub fn finish(&self) {
        if let Some(overall) = &self.overall {
            overall.finish_and_clear();
        }
    }
}

fn print_line(multi: Option<&MultiProgress>, text: &str) {
    match multi {
        Some(multi) => {
            let _ = multi.println(text);
        }
        None => {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "{text}");
            let _ = stderr.flush();
        }
    }
}

/// The progress of one class: its bar on a terminal, else lines.
pub struct ProgressLine {
    class: String,
    bar: Option<ProgressBar>,
    multi: Option<MultiProgress>,
    overall: Option<ProgressBar>,
    quiet: bool,
    started: Instant,
    phase: Phase,
    last_line: Option<Instant>,
}

impl ProgressLine {
    fn emit(&mut self, text: String) {
        match &self.bar {
            Some(bar) => bar.set_message(text),
            None if !self.quiet => print_line(None, &text),
            None => {}
        }
    }

    /// An error or warning: shown even with `--quiet`.
    fn say(&self, text: &str) {
        print_line(self.multi.as_ref(), text);
    }

    pub fn finish(&mut self, outcome: &Result<ClassOutcome, PipelineError>) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let text = match outcome {
            Ok(outcome) if outcome.emission.verification.failure().is_some() => format!(
                "{}: searched in {elapsed:.1}s, tests not verified",
                self.class
            ),
            Ok(outcome) => format!(
                "{}: done in {elapsed:.1}s, {} tests",
                self.class,
                outcome.emission.suite.kept.len()
            ),
            Err(_) => format!("{}: failed after {elapsed:.1}s", self.class),
        };
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if let Some(overall) = &self.overall {
            overall.inc(1);
        }
        if !self.quiet {
            self.say(&text);
        }
        if let Err(error) = outcome {
            self.say(&format!("ctgls: {error}"));
            if let PipelineError::Generation(ctg::job::GenerationError::DoesNotCompile {
                diagnostics,
                ..
            }) = error
            {
                for diagnostic in diagnostics.iter().take(20) {
                    self.say(&format!("  {diagnostic}"));
                }
            }
        }
        if let Ok(outcome) = outcome {
            match &outcome.emission.verification {
                Verification::WorkerOnly { reason } => self.say(&format!(
                    "ctgls: warning: the tests were not run with JUnit: {reason}"
                )),
                Verification::Failed { reason } => self.say(&format!(
                    "ctgls: error: the tests could not be verified and none was written (the \
                     coverage shown is the search's): {reason}"
                )),
                Verification::JUnit => {}
            }
            if let Some(error) = &outcome.emission.write_error {
                self.say(&format!("ctgls: error: {error}"));
            }
            for warning in outcome
                .generation
                .warnings
                .iter()
                .chain(&outcome.store_warnings)
            {
                self.say(&format!("ctgls: warning: {warning}"));
            }
        }
    }
}

impl GenerationObserver for ProgressLine {
    fn on_phase(&mut self, phase: Phase, elapsed: Duration) {
        self.phase = phase;
        let text = format!(
            "{}: {} ({:.1}s)",
            self.class,
            phase.as_str(),
            elapsed.as_secs_f64()
        );
        self.emit(text);
    }

    fn on_progress(&mut self, progress: &Progress) {
        let now = Instant::now();
        if self.bar.is_none()
            && self
                .last_line
                .is_some_and(|last| now - last < Duration::from_secs(2))
        {
            return;
        }
        self.last_line = Some(now);
        let Some(branches) = progress
            .coverage
            .iter()
            .find(|coverage| coverage.criterion == Criterion::Branch)
        else {
            return;
        };
        let ratio = if branches.total == 0 {
            1.0
        } else {
            branches.covered as f64 / branches.total as f64
        };
        let bar = if self.bar.is_some() {
            let filled = (ratio * 20.0).round() as usize;
            format!(
                " [{}{}]",
                "#".repeat(filled),
                ".".repeat(20 - filled.min(20))
            )
        } else {
            String::new()
        };
        let text = format!(
            "{}: searching{bar} {}/{} branches, {} executions, {:.1}s",
            self.class,
            branches.covered,
            branches.total,
            progress.executions,
            self.started.elapsed().as_secs_f64()
        );
        self.emit(text);
    }
}
