//! The modules of `src/` point down: each sits in a layer and names, through the `crate::` paths of
//! its code (tests aside), only modules of its own layer or below; and no module reaches a module
//! that reaches it back. Read from the source, as a newcomer reads it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The layers, lowest first: the rules every game keeps (and the tools they share, the one rule on
/// JSON keys given twice among them), the games (every folder of `src/` but the bindings', see
/// `game_folders`, and the list of them), what makes states trustworthy (keys, canonical form,
/// seals, opaque states, the reading of untrusted ones), the wire (answers, requests, batches,
/// archives, schemas), then what callers hold.
const LAYERS: [(&str, &[&str]); 5] = [
    (
        "rules",
        &[
            "error",
            "game",
            "chance",
            "players",
            "decisions",
            "search",
            "info",
            "nullable",
            "strict",
            "borrowed",
            "digits",
            "json",
        ],
    ),
    ("games", &["registry"]),
    (
        "trust",
        &["opaque", "keys", "canonical", "seal", "incoming"],
    ),
    (
        "wire",
        &[
            "answer", "claims", "engine", "request", "batch", "result", "rows", "tally", "archive",
            "schemas",
        ],
    ),
    ("bindings", &["replay", "walker", "python"]),
];

/// The folder of `src/` that holds the bindings, the one that is no game.
const BINDINGS_FOLDER: &str = "python";

/// The games' modules: the folders of `src/` (a game is its folder), the bindings' aside.
fn game_folders() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders: Vec<String> = fs::read_dir(src)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .map(|path| path.file_name().unwrap().to_str().unwrap().to_owned())
        .filter(|name| name != BINDINGS_FOLDER)
        .collect();
    folders.sort();
    folders
}

/// The layer of `module` (its index in `LAYERS`; a game folder's, the games').
fn layer(module: &str) -> usize {
    if game_folders().iter().any(|folder| folder == module) {
        return 1;
    }
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
        .unwrap_or_else(|| panic!("{module} is in no layer: add it to LAYERS"))
}

/// Where a module names a module of a layer above its own.
fn upward(modules: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = Vec::new();
    for (module, named) in modules {
        for above in named.iter().filter(|named| layer(named) > layer(module)) {
            let (from, to) = (LAYERS[layer(module)].0, LAYERS[layer(above)].0);
            found.push(format!("{module} ({from}) names {above} ({to})"));
        }
    }
    found
}

/// Each top-level module of `src/` (a file, or a directory with its files) and the modules its code
/// names through `crate::` (its tests, after `#[cfg(test)]`, left out).
fn modules() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeMap::new();
    let mut files = vec![src.clone()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(
                fs::read_dir(&path)
                    .unwrap()
                    .map(|entry| entry.unwrap().path()),
            );
            continue;
        }
        let relative = path
            .strip_prefix(&src)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let top = relative.split('/').next().unwrap().trim_end_matches(".rs");
        if top == "lib" || !relative.ends_with(".rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let code = [
            "#[cfg(test)]\nmod tests",
            "#[cfg(test)]\npub(crate) mod tests",
        ]
        .iter()
        .fold(text.as_str(), |code, tests| {
            code.split(tests).next().unwrap()
        });
        // Paths are read one by one: a grouped `use crate::{a, b}` would hide its modules.
        assert!(
            !code.contains("crate::{"),
            "{relative}: name each crate:: path apart"
        );
        let named: &mut BTreeSet<String> = modules.entry(top.to_owned()).or_default();
        for (at, _) in code.match_indices("crate::") {
            let name: String = code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name != top {
                named.insert(name);
            }
        }
    }
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    for named in modules.values_mut() {
        named.retain(|name| known.contains(name));
    }
    modules
}

/// The modules `from` reaches through the modules it names.
fn reached(modules: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut next: Vec<&String> = modules[from].iter().collect();
    while let Some(module) = next.pop() {
        if seen.insert(module.clone()) {
            next.extend(&modules[module]);
        }
    }
    seen
}

#[test]
fn no_module_reaches_a_module_that_reaches_it_back() {
    let modules = modules();
    assert!(modules.len() > 10 && modules["game"].contains("error"));
    let cycles: Vec<String> = modules
        .keys()
        .filter(|module| reached(&modules, module).contains(*module))
        .map(|module| format!("{module} -> {:?}", modules[module]))
        .collect();
    assert!(
        cycles.is_empty(),
        "modules in a cycle:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_check_finds_a_cycle() {
    let mut modules = modules();
    modules.get_mut("error").unwrap().insert("game".into());
    assert!(reached(&modules, "error").contains("error"));
}

#[test]
fn every_module_names_only_its_own_layer_or_below() {
    let modules = modules();
    for module in modules.keys() {
        layer(module);
    }
    let listed: usize = LAYERS.iter().map(|(_, modules)| modules.len()).sum();
    let games = game_folders().len();
    assert!(games >= 4, "the games' folders: {:?}", game_folders());
    assert_eq!(
        listed + games,
        modules.len(),
        "LAYERS lists a module that is gone"
    );
    let upward = upward(&modules);
    assert!(upward.is_empty(), "{}", upward.join("\n"));
}

#[test]
fn the_check_finds_a_module_reaching_up() {
    let mut modules = modules();
    modules.get_mut("game").unwrap().insert("seal".into());
    assert_eq!(upward(&modules), ["game (rules) names seal (trust)"]);
}

/// Each file of a game folder (`mod.rs`, the folder's face, aside) and the files of the same folder
/// its code names through `super::<file>` paths, grouped ones included (its tests left out).
fn files_of(folder: &str) -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(folder);
    let texts: BTreeMap<String, String> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| {
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            (name, fs::read_to_string(&path).unwrap())
        })
        .filter(|(name, _)| name != "mod")
        .collect();
    let mut files = BTreeMap::new();
    for (file, text) in &texts {
        let code = text.split("#[cfg(test)]").next().unwrap();
        let mut named = BTreeSet::new();
        for (at, _) in code.match_indices("super::") {
            let rest = &code[at + "super::".len()..];
            // `super::{a::X, b}` names `a` and `b`; `super::a::X` names `a`.
            let group = match rest.strip_prefix('{') {
                Some(group) => &group[..group.find('}').unwrap_or(group.len())],
                None => rest
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap(),
            };
            for item in group.split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if texts.contains_key(&name) && &name != file {
                    named.insert(name);
                }
            }
        }
        files.insert(file.clone(), named);
    }
    files
}

#[test]
fn no_file_of_a_game_folder_reaches_a_file_that_reaches_it_back() {
    let mut cycles = Vec::new();
    for folder in game_folders() {
        let files = files_of(&folder);
        assert!(
            files.values().any(|named| named.contains("board")),
            "{folder}: no paths read"
        );
        cycles.extend(
            files
                .keys()
                .filter(|file| reached(&files, file).contains(*file))
                .map(|file| format!("{folder}/{file} -> {:?}", files[file])),
        );
    }
    assert!(
        cycles.is_empty(),
        "files in a cycle:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_folder_check_finds_a_cycle() {
    let mut files = files_of(&game_folders()[0]);
    files.get_mut("board").unwrap().insert("state".into());
    assert!(reached(&files, "board").contains("board"));
}
