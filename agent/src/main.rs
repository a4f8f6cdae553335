//! knotroute-agent. The protocol client is tracked in its own issue; until then
//! this binary only reports its version so images and packaging can be built.

fn main() {
    let arg = std::env::args().nth(1);
    match arg.as_deref() {
        None | Some("--version") | Some("-V") | Some("version") => {
            println!("knotroute-agent {}", env!("CARGO_PKG_VERSION"));
        }
        Some(other) => {
            eprintln!("knotroute-agent {}: unknown argument {other:?}; this build only supports --version", env!("CARGO_PKG_VERSION"));
            std::process::exit(2);
        }
    }
}
