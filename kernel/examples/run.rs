//! Runs one command under the kernel, in the current directory, and prints the
//! model-facing result: `cargo run -p jig-kernel --example run -- ls -la`.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let kernel = match jig_kernel::Kernel::builder(".").build() {
        Ok(kernel) => kernel,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    match kernel.run(&argv) {
        Ok(outcome) => {
            println!("{}", outcome.render());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
