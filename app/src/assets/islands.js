// The islands build's hydration script (app/src/islands.rs): Leptos 0.8's
// island_script.js (MIT), changed in two ways. It starts at once instead of
// when the browser is idle (on a slow phone idle comes late, and the page is
// not interactive until then), and it marks the page interactive once every
// island has hydrated, as the full build's front end does (app::mark_hydrated).
((jsPath, wasmPath) => {
	const childrenCallbacks = [];
	async function traverse(node, mod) {
		if (node.nodeType !== Node.ELEMENT_NODE) return;
		const tag = node.tagName.toLowerCase();
		if (tag === "leptos-island") {
			await hydrateIsland(node, node.dataset.component || null, mod);
			for (const child of node.children) await traverse(child, mod);
		} else if (tag === "leptos-children") {
			childrenCallbacks.push(node.$$on_hydrate);
			for (const child of node.children) await traverse(child, mod);
			childrenCallbacks.pop();
		} else {
			for (const child of node.children) await traverse(child, mod);
		}
	}
	async function hydrateIsland(el, id, mod) {
		const islandFn = mod[id];
		if (!islandFn) {
			console.warn(`no WebAssembly function for the island ${id}`);
			return;
		}
		const onChildren = childrenCallbacks[childrenCallbacks.length - 1];
		if (onChildren) onChildren();
		const res = islandFn(el);
		if (res && res.then) await res;
	}
	import(jsPath).then((mod) =>
		mod.default({ module_or_path: wasmPath }).then(async () => {
			mod.hydrate();
			await traverse(document.body, mod);
			document.body.setAttribute("data-hydrated", "true");
			performance.mark("knotroute-hydrated");
		}),
	);
})
