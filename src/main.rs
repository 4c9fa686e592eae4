fn main() -> std::process::ExitCode {
    hermes::app::main()
}
