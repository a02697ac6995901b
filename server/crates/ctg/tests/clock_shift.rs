//! ctgls's clock-shift preload library (`verify/preload.rs`): a real JVM started with it sees
//! the wall clock moved by the offset, in both directions, through `System.currentTimeMillis()`,
//! `Instant.now()` and `LocalDate.now()`, while `System.nanoTime()` (timeouts) is left alone;
//! Debian's `faketime` gives the same day (a cross-check only; ctgls does not use it). Linux.

use std::path::Path;
use std::process::Command;

use ctg::verify::{clock_shift_environment, clock_shift_library};
use jvm::Jdk;

/// Prints the wall clock as the JVM sees it: millis, then the instant's seconds, then today.
const CLOCK: &str = r#"
public class Clock {
    public static void main(String[] args) {
        System.out.println(System.currentTimeMillis() / 1000 + " "
                + java.time.Instant.now().getEpochSecond() + " "
                + java.time.LocalDate.now(java.time.ZoneOffset.UTC));
    }
}
"#;

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs() as i64
}

/// The JVM's (millis seconds, instant seconds, UTC date) with `env` set.
fn jvm_clock(
    jdk: &Jdk,
    dir: &Path,
    env: &[(String, String)],
    prefix: &[&str],
) -> (i64, i64, String) {
    let mut command = match prefix.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).arg(&jdk.java);
            c
        }
        None => Command::new(&jdk.java),
    };
    command
        .arg("-cp")
        .arg(dir)
        .arg("Clock")
        .envs(env.iter().map(|(k, v)| (k, v)));
    let output = command.output().expect("java runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let fields: Vec<&str> = text.split_whitespace().collect();
    (
        fields[0].parse().unwrap(),
        fields[1].parse().unwrap(),
        fields[2].to_string(),
    )
}

fn utc_date(unix: i64) -> String {
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = unix.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[test]
fn a_jvm_sees_the_shifted_clock_in_both_directions() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let jdk = Jdk::locate(None).expect("a JDK");
    let dir = std::env::temp_dir().join(format!("ctgls-clock-shift-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Clock.java"), CLOCK).unwrap();
    let compiled = Command::new(&jdk.javac)
        .arg("-d")
        .arg(&dir)
        .arg(dir.join("Clock.java"))
        .status()
        .expect("javac runs");
    assert!(compiled.success());
    let library = clock_shift_library(&dir.join("cache")).expect("the library for Linux");
    assert_eq!(
        clock_shift_library(&dir.join("cache")).as_deref(),
        Some(library.as_path()),
        "written once, found again"
    );
    for offset in [40 * 86_400 + 5 * 3_600, -(23 * 86_400 + 7 * 3_600)] {
        let before = unix_now();
        let (millis, instant, date) =
            jvm_clock(&jdk, &dir, &clock_shift_environment(&library, offset), &[]);
        let after = unix_now();
        for seen in [millis, instant] {
            assert!(
                (before + offset..=after + offset).contains(&seen),
                "offset {offset}: saw {seen}, expected {}..={}",
                before + offset,
                after + offset
            );
        }
        assert!(
            [utc_date(before + offset), utc_date(after + offset)].contains(&date),
            "offset {offset}: LocalDate.now() was {date}"
        );
    }
    // No offset: the real clock.
    let (millis, _, _) = jvm_clock(&jdk, &dir, &clock_shift_environment(&library, 0), &[]);
    assert!((millis - unix_now()).abs() < 60);
    // Cross-check with Debian's faketime where it is installed: the same day 40 days ahead.
    if Path::new("/usr/bin/faketime").exists() {
        let (_, _, ours) = jvm_clock(
            &jdk,
            &dir,
            &clock_shift_environment(&library, 40 * 86_400),
            &[],
        );
        let (_, _, theirs) = jvm_clock(&jdk, &dir, &[], &["/usr/bin/faketime", "-f", "+40d"]);
        assert_eq!(ours, theirs, "ctgls's shift and faketime's agree");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
