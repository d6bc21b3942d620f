//! Fixture without a cycle: `a -> b -> c`, `a -> c`, and each module's own children.
mod a;
mod b;
mod c;
