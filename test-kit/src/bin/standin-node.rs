//! STAND-IN node image entry point (see `test_kit::node`): built into
//! `ghcr.io/localzet/knotroute:<test tag>` by scripts/standin-images.sh,
//! labelled `io.knotroute.standin=true`. Not the real node.

fn main() {
    let env = std::env::vars().collect();
    let outcome = test_kit::node::Settings::from_env(&env)
        .and_then(|settings| test_kit::node::run(&settings));
    if let Err(why) = outcome {
        eprintln!("knotroute-node: {why}");
        std::process::exit(1);
    }
}
