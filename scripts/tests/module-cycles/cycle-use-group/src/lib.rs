//! Fixture: a cycle written with `use super::{…}` groups and `as` renamings.
mod a;
mod b;
mod c;
