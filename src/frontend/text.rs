//! Lines of text on screen: wrapping and cutting to a width in
//! characters, and editing a line from this frame's typing or a pad's
//! d-pad. Used by the menus, the chat box and the HUD.

use macroquad::prelude::*;

use super::keys::{pad_pressed, pressed};

/// Greedy word wrap at `width` characters.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("never empty");
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// `text` cut to `width` characters, with `...` when it was longer.
pub fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        let kept: String = text.chars().take(width.saturating_sub(3)).collect();
        format!("{kept}...")
    }
}

/// Applies this frame's typing, paste and Backspace to `text`, keeping it
/// to `max_chars` characters; true if it typed or deleted something.
pub fn edit_text(text: &mut String, max_chars: usize) -> bool {
    let ctrl = is_key_down(KeyCode::LeftControl) || is_key_down(KeyCode::RightControl);
    if ctrl
        && pressed(KeyCode::V)
        && let Some(pasted) = macroquad::miniquad::window::clipboard_get()
    {
        let room = max_chars.saturating_sub(text.chars().count());
        text.extend(pasted.chars().filter(|c| !c.is_control()).take(room));
    }
    let mut edited = false;
    while let Some(c) = get_char_pressed() {
        if !c.is_control() && !ctrl && text.chars().count() < max_chars {
            text.push(c);
            edited = true;
        }
    }
    if pressed(KeyCode::Backspace) {
        text.pop();
        edited = true;
    }
    edited
}

/// What a pad's d-pad picks from: the room-code symbols first (codes are
/// what a pad player types), then what server addresses need.
const PAD_CHARS: &str = "23456789ABCDEFGHJKMNPQRSTUVWXYZ-01ILOabcdefghijklmnopqrstuvwxyz:/._";

/// Typing with a pad: Up/Down change the last character along
/// [`PAD_CHARS`], Right adds one, Left deletes one; true if it changed.
pub fn pick_chars(text: &mut String, max_chars: usize) -> bool {
    let step = |c: char, by: isize| {
        let chars: Vec<char> = PAD_CHARS.chars().collect();
        let at = chars.iter().position(|&k| k == c).unwrap_or(0) as isize;
        chars[(at + by).rem_euclid(chars.len() as isize) as usize]
    };
    let mut edited = true;
    if pad_pressed(KeyCode::Right) && text.chars().count() < max_chars {
        text.push(PAD_CHARS.chars().next().unwrap_or('2'));
    } else if pad_pressed(KeyCode::Left) {
        text.pop();
    } else if let Some(by) = [(KeyCode::Up, 1), (KeyCode::Down, -1)]
        .into_iter()
        .find_map(|(k, by)| pad_pressed(k).then_some(by))
    {
        let last = text.pop();
        text.push(last.map_or_else(|| PAD_CHARS.chars().next().unwrap_or('2'), |c| step(c, by)));
    } else {
        edited = false;
    }
    edited
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_wrap_at_words_and_cut_with_dots() {
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap("", 7), [""]);
        assert_eq!(fit("short", 10), "short");
        assert_eq!(fit(&"é".repeat(20), 10), format!("{}...", "é".repeat(7)));
    }
}
