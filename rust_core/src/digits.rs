//! Numbers in decimal for the games' notations, written and read: lists of legal moves and states
//! write many small numbers, and `write!` (the formatting machinery) costs several times more than
//! these.

use std::fmt;

/// Writes `number` in decimal to `out`, as one string.
pub(crate) fn write_number(out: &mut impl fmt::Write, mut number: u64) -> fmt::Result {
    let digit = |n: u64| char::from(b'0' + (n % 10) as u8);
    // Most numbers of a notation have one or two digits.
    if number < 10 {
        return out.write_char(digit(number));
    }
    if number < 100 {
        out.write_char(digit(number / 10))?;
        return out.write_char(digit(number));
    }
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (number % 10) as u8;
        number /= 10;
        if number == 0 {
            break;
        }
    }
    out.write_str(std::str::from_utf8(&digits[start..]).expect("digits are ASCII"))
}

/// Appends `number` in decimal to `text`.
pub(crate) fn push_number(text: &mut String, number: u64) {
    write_number(text, number).expect("a String takes any text");
}

/// Reads a decimal number without sign or leading zeros (at most 9 digits, so it fits a `u32`).
pub(crate) fn decimal(text: &str) -> Option<u32> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > 9 || (bytes.len() > 1 && bytes[0] == b'0') {
        return None;
    }
    // At most 9 digits: the value fits.
    bytes.iter().try_fold(0u32, |value, &byte| {
        byte.is_ascii_digit()
            .then(|| value * 10 + u32::from(byte - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::{decimal, push_number};

    #[test]
    fn numbers_read_as_display_writes_them() {
        for number in [0, 1, 9, 10, 18, 99, 100, 255, 65_535, 1 << 48, u64::MAX] {
            let mut text = String::from("x");
            push_number(&mut text, number);
            assert_eq!(text, format!("x{number}"));
        }
    }

    #[test]
    fn decimals_are_canonical_and_short() {
        for (text, value) in [
            ("0", Some(0)),
            ("7", Some(7)),
            ("21", Some(21)),
            ("999999999", Some(999_999_999)),
        ] {
            assert_eq!(decimal(text), value, "{text}");
        }
        for text in [
            "",
            "01",
            "00",
            "1234567890",
            "+1",
            "-1",
            "1a",
            "a1",
            " 1",
            "1.5",
            "٣",
        ] {
            assert_eq!(decimal(text), None, "{text}");
        }
    }
}
