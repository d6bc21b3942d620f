//! Reaches `y` from an inline module: `super::super` there is `outer`.
pub struct X;

mod inner {
    pub mod deeper {
        pub use super::super::super::y::Y;
    }
    pub use self::deeper::Y as Again;
}
