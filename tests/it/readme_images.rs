//! The README's pictures are made, not kept (issue 58): every image it
//! embeds exists, and the main menu's picture shows the menu the code has
//! now. `scripts/screenshots.sh` writes `docs/screenshots/menu.items` from
//! the items the binary logged while drawing `menu.png`; a menu changed
//! without running the script fails here.

use std::path::Path;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The local images `![alt](path)` of a Markdown text.
fn images(markdown: &str) -> Vec<String> {
    markdown
        .split("![")
        .skip(1)
        .filter_map(|rest| rest.split_once("](")?.1.split_once(')'))
        .map(|(path, _)| path.to_string())
        .filter(|path| !path.starts_with("http"))
        .collect()
}

#[test]
fn every_image_the_readme_embeds_exists() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let found = images(&readme);
    assert!(
        found.iter().any(|p| p.ends_with("menu.png")),
        "the README embeds no menu picture: {found:?}"
    );
    for path in &found {
        assert!(
            repo().join(path).is_file(),
            "README.md embeds {path}, which is missing"
        );
    }
}

#[test]
fn the_menu_picture_shows_the_menu_the_code_has() {
    let items = repo().join("docs/screenshots/menu.items");
    let drawn = std::fs::read_to_string(&items)
        .unwrap_or_else(|e| panic!("{}: {e}; run bash scripts/screenshots.sh", items.display()));
    let now = twinstar::app::main_menu_labels(false).join(" | ");
    assert_eq!(
        drawn.trim(),
        now,
        "docs/screenshots/menu.png shows another menu: run bash scripts/screenshots.sh"
    );
}
