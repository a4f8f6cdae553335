//! `hydrate_whole_page`: this is the full build's WebAssembly (feature
//! `hydrate` without `islands`). There the islands compile as components
//! (app/src/islands.rs): the whole page hydrates anyway, and an island's
//! exported entry point would only add bytes that build never calls.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(hydrate_whole_page)");
    let on = |feature: &str| std::env::var_os(format!("CARGO_FEATURE_{feature}")).is_some();
    if on("HYDRATE") && !on("ISLANDS") {
        println!("cargo::rustc-cfg=hydrate_whole_page");
    }
}
