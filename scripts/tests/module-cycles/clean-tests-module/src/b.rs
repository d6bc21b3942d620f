//! Has a child named like its sibling; its tests use the child.
mod a;

pub struct B;

// A comment naming super::a and a string naming it are not uses.
pub const NOTE: &str = "super::a::make";

#[cfg(test)]
mod tests {
    use super::a::inner;

    #[test]
    fn inner_is_one() {
        assert_eq!(inner(), 1);
    }
}
