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

/// Empties the typed-characters queue when a prompt opens and returns
/// what was typed after the Enter that opened it: on a loaded machine the
/// first letters of the line can arrive in the same frame as that Enter.
/// (Characters nobody read are dropped at each frame's end, `end_frame`.) Enter arrives as `'\r'` in the queue where the platform
/// gives it a character; where it does not, nothing is kept.
pub fn take_chars_after_enter(max_chars: usize) -> String {
    let queued = std::iter::from_fn(get_char_pressed);
    after_last_enter(queued, max_chars)
}

fn after_last_enter(queued: impl IntoIterator<Item = char>, max_chars: usize) -> String {
    let queued: Vec<char> = queued.into_iter().collect();
    let Some(enter) = queued.iter().rposition(|c| matches!(c, '\r' | '\n')) else {
        return String::new();
    };
    queued[enter + 1..]
        .iter()
        .filter(|c| !c.is_control())
        .take(max_chars)
        .collect()
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

    #[test]
    fn a_prompt_keeps_only_what_was_typed_after_its_enter() {
        let queue = |s: &str| s.chars().collect::<Vec<_>>();
        // The match's movement keys, then the Enter and the line's start.
        assert_eq!(after_last_enter(queue("wwdsa\rwas"), 80), "was");
        assert_eq!(after_last_enter(queue("w\ra\rsd\u{8}!"), 80), "sd!");
        assert_eq!(after_last_enter(queue("wasd\rabcdef"), 4), "abcd");
        // No Enter character (a pad's Y, or a platform without one):
        // nothing typed before can be told from the line.
        assert_eq!(after_last_enter(queue("wasd"), 80), "");
        assert_eq!(after_last_enter(queue(""), 80), "");
    }
}
