//! Uses `a` under another name.
use super::a as first;

pub struct C;

pub fn make(x: first::A) -> first::A {
    x
}
