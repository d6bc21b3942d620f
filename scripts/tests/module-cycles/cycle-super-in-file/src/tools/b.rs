//! Uses `a` through an inline `super::` path.
pub fn helper() -> u32 {
    2
}

pub fn twice() -> u32 {
    super::a::run() * 2
}
