//! Client text on its way into a response header or a log line (SPEC §3): CR, LF and the other
//! control characters would start a forged header or a forged log line there.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every control character (and the Unicode line separators, which some log viewers
/// break lines on) escaped as `\n`, `\r`, `\t` or `\u{…}`; a backslash doubles, so an escape in
/// the log cannot be mistaken for one the client typed.
pub fn for_log(text: &str) -> Cow<'_, str> {
    let hostile = |c: char| c.is_control() || matches!(c, '\\' | '\u{2028}' | '\u{2029}');
    if !text.chars().any(hostile) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            c if hostile(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A URL (or part of one) fit for `Location`: every byte outside visible ASCII is
/// percent-encoded, so whatever a request carried, the header value is valid and one line.
/// Escapes already present stay as they are.
pub fn for_header(url: &str) -> Cow<'_, str> {
    if url.bytes().all(|b| b.is_ascii_graphic()) {
        return Cow::Borrowed(url);
    }
    let mut out = String::with_capacity(url.len() + 8);
    for b in url.bytes() {
        if b.is_ascii_graphic() {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::HeaderValue;

    #[test]
    fn log_text_keeps_to_one_line() {
        assert_eq!(for_log("/api/v1/customers"), "/api/v1/customers");
        assert_eq!(
            for_log("a\nFORGED\r\t\\n\u{0}\u{1b}\u{7f}\u{85}\u{2028}é"),
            "a\\nFORGED\\r\\t\\\\n\\u{0}\\u{1b}\\u{7f}\\u{85}\\u{2028}é"
        );
    }

    #[test]
    fn header_urls_are_valid_header_values() {
        let kept = "https://x.test/invoice/a%0d%0ab?token=1&b=%20";
        assert_eq!(for_header(kept), kept);
        let hostile = "/invoice/x\r\nSet-Cookie: a=b\u{0}\u{7f}é";
        let safe = for_header(hostile);
        assert_eq!(safe, "/invoice/x%0D%0ASet-Cookie:%20a=b%00%7F%C3%A9");
        assert!(HeaderValue::from_str(&safe).is_ok());
    }
}
