//! Numbers in decimal for the games' notations: lists of legal moves and states write many small
//! numbers, and `write!` (the formatting machinery) costs several times more than these.

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

#[cfg(test)]
mod tests {
    use super::push_number;

    #[test]
    fn numbers_read_as_display_writes_them() {
        for number in [0, 1, 9, 10, 18, 99, 100, 255, 65_535, 1 << 48, u64::MAX] {
            let mut text = String::from("x");
            push_number(&mut text, number);
            assert_eq!(text, format!("x{number}"));
        }
    }
}
