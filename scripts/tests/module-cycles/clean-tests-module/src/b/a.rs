//! `b`'s child `a`.
pub fn inner() -> u32 {
    1
}
