//! STAND-IN Beacon image entry point (see `test_kit::beacon`): built into
//! `ghcr.io/localzet/knotroute-beacon:<test tag>` by scripts/standin-images.sh,
//! labelled `io.knotroute.standin=true`. Not the real Beacon.

fn main() {
    let env = std::env::vars().collect();
    match test_kit::beacon::start(&env) {
        Ok(started) => {
            let relay = started.relay.map_or("off".to_string(), |a| a.to_string());
            println!(
                "knotroute-beacon {} (STAND-IN) listening on {}, relay {relay}",
                test_kit::beacon::VERSION,
                started.api
            );
            loop {
                std::thread::park();
            }
        }
        Err(why) => {
            eprintln!("knotroute-beacon: {why}");
            std::process::exit(1);
        }
    }
}
