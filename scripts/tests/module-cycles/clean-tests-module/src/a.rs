//! Uses `b`.
use super::b::B;

pub fn make() -> B {
    B
}
