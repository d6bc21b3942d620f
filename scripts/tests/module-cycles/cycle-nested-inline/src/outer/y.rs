//! Reaches `x` with a `crate::` path.
pub struct Y(pub crate::outer::x::X);
