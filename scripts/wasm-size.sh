#!/usr/bin/env bash
# What a browser downloads in WebAssembly for the first load of each screen
# (the full build) or island (the islands build) after `scripts/build-release.sh`
# (with `--full` for the full build): the main module plus the chunks the split manifest
# lists for it, each gzip -9 (as served
# compressed) and brotli (as the build precompressed it). Prints the bytes per screen and the largest, then
# what each form loaded on demand (`pages::on_demand`) adds when opened.
set -euo pipefail
cd "$(dirname "$0")/.."
pkg="${1:-target/site/pkg}"
python3 - "$pkg" <<'PY'
import glob, gzip, json, os, sys
pkg = sys.argv[1]
def size(name):
    """Raw, gzip -9 and, where the build precompressed it, brotli bytes (as served)."""
    path = os.path.join(pkg, name + ".wasm")
    data = open(path, "rb").read()
    br = os.path.getsize(path + ".br") if os.path.exists(path + ".br") else 0
    return len(data), len(gzip.compress(data, 9)), br
def only(pattern):
    found = [p for p in glob.glob(os.path.join(pkg, pattern)) if not p.endswith((".br", ".gz"))]
    return os.path.basename(min(found, key=len))
# Content-hashed names (knotroute.<hash>.wasm) or the plain ones of an unhashed build.
main = only("knotroute*.wasm")[: -len(".wasm")]
main_raw, main_gz, main_br = size(main)
print(f"main module: {main_raw:,} raw, {main_gz:,} gzip, {main_br:,} brotli")
manifest = json.load(open(os.path.join(pkg, only("__wasm_split_manifest*.json"))))
def entry(prefix):
    return next(k for k in manifest if k.strip("_").startswith(prefix))
# Lazy sections a screen loads with itself (#[lazy] functions it awaits on
# first render) count towards its first load; none today.
SECTIONS = {}
screens = {}
for route, chunks in manifest.items():
    name = route.strip("_").split("_view")[0]
    # The islands build (the one shipped): a lazy island's module is
    # <island>_loader_<n>, and it is what a screen loads beside the main module.
    if "_loader_" in name:
        name = name.rsplit("_loader_", 1)[0]
        screens[name] = sorted(chunks)
    elif name.endswith("_screen"):
        union = set(chunks)
        for section in SECTIONS.get(name, []):
            union |= set(manifest[entry(section)])
        screens[name] = sorted(union)
worst = ("", 0)
for name, chunks in sorted(screens.items()):
    raw, gz, br = main_raw, main_gz, main_br
    for chunk in chunks:
        r, g, b = size(chunk)
        raw += r
        gz += g
        br += b
    print(f"{name:<24} first load {raw:>10,} raw {gz:>10,} gzip {br:>10,} brotli ({len(chunks)} chunks)")
    if gz > worst[1]:
        worst = (name, gz)
print(f"largest first load: {worst[0]} {worst[1]:,} bytes gzip")
# On-demand forms, and the parts an island fetches once it is interactive
# (the network form's rules and save, a job's output reading): the chunks of a #[lazy] function that its screen has not
# loaded already. Which screen opens which form is not in the manifest.
OPENED_FROM = {"deploy_beacon_form": "beacons_screen", "add_beacon_form": "beacons_screen", "publish_section": "services_screen",
               "job_section": "jobs_screen",
               "add_agent_form": "infrastructure_screen", "new_token_form": "tokens_screen",
               "new_invite_form": "onboarding_screen", "turn_on_form": "settings_screen",
               "manage_form": "settings_screen", "check_network": "new_network_screen",
               "save_network": "new_network_screen", "read_output": "job_screen",
               "move_agent_form": "agent_screen", "invite_form": "people_screen",
               "link_form": "people_screen"}
ISLAND_OPENED_FROM = {"deploy_beacon_form": "beacon_forms", "add_beacon_form": "beacon_forms",
                      "publish_section": "publish_service", "job_section": "new_job",
                      "add_agent_form": "add_agent", "new_token_form": "new_api_token",
                      "new_invite_form": "new_invite_button", "turn_on_form": "two_step",
                      "manage_form": "two_step", "check_network": "network_form",
                      "save_network": "network_form", "read_output": "job_output",
                      "move_agent_form": "move_agent_button", "invite_form": "invite_person",
                      "link_form": "two_step_setup_link"}
if not any(k.endswith("_screen") for k in screens):
    OPENED_FROM = ISLAND_OPENED_FROM
for key, chunks in sorted(manifest.items()):
    if key.strip("_").split("_view")[0].endswith("_screen") or "_loader_" in key:
        continue
    name = key.strip("_").rsplit("_", 1)[0]
    screen = OPENED_FROM.get(name)
    extra = sorted(set(chunks) - set(screens.get(screen, [])))
    gz = sum(size(c)[1] for c in extra)
    print(f"on demand: {name:<20} from {screen or '?'}: +{gz:,} gzip ({len(extra)} chunks)")
PY
