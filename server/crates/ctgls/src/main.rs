fn main() -> std::process::ExitCode {
    ctgls::cli::main()
}
