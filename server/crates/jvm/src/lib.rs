//! JVM worker supervisor.
