//! The program inside the test image for tests/docker_engine.rs (no registry
//! is reachable, so the Beacon and sidecar images are built locally from a
//! scratch rootfs holding this binary). As a Beacon it answers every HTTP
//! request on :8080 with 200; as a sidecar (KNOTROUTE_SERVICE_NAME set) it
//! announces a `.knot` address the way the real sidecar does, then idles.

use std::io::{Read, Write};

fn main() {
    if let Ok(name) = std::env::var("KNOTROUTE_SERVICE_NAME") {
        println!("INFO publishing {name} as {name}-kr7test.knot");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    let listener = std::net::TcpListener::bind("0.0.0.0:8080").expect("port 8080");
    println!("test beacon listening on :8080");
    for stream in listener.incoming().flatten() {
        let mut stream = stream;
        let mut request = [0u8; 1024];
        let _ = stream.read(&mut request);
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
    }
}
