//! Uses `b` with a `use super::` line.
use super::b::helper;

pub fn run() -> u32 {
    helper() + 1
}
