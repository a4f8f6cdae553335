//! STAND-IN sidecar image entry point (see `test_kit::sidecar`): built into
//! `ghcr.io/localzet/knotroute-sidecar:<test tag>` by scripts/standin-images.sh,
//! labelled `io.knotroute.standin=true`. Not the real sidecar.

fn main() {
    let env = std::env::vars().collect();
    let outcome = test_kit::sidecar::Settings::from_env(&env)
        .and_then(|settings| test_kit::sidecar::run(&settings));
    if let Err(why) = outcome {
        eprintln!("knotroute-sidecar: {why}");
        std::process::exit(1);
    }
}
