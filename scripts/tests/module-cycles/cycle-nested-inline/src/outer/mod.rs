//! Two children, `x` and `y`.
mod x;
mod y;
