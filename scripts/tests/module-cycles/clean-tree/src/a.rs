//! Uses `b` and `c`, and its own child through `self::`.
use super::{b, c::C};
use self::part::Part;

mod part;

pub fn all() -> (b::B, C, Part) {
    (b::make(), C, Part)
}
