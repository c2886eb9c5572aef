//! A table of fixed length whose slots start as zeros, and whose pages cost
//! no memory until a slot in them is written.
//!
//! Why not a `Vec`: a part of a parallel run keeps the whole port table, so
//! that port ids stay global on the packet paths, but builds only the ports
//! it owns (`Simulator::make_part`); the others stay zeroed slots it never
//! writes. A zeroed `Vec` of a type aligned to a cache line, as `Port` is,
//! is filled with zeros by the allocator, which touches every page; here the
//! table maps anonymous memory itself, which the OS backs page by page on
//! the first write. Without `mmap` (not unix) the table is allocated zeroed
//! as a `Vec` would be: the same results, only without the saving.
//!
//! Sound because `T: Zeroable` (bytemuck's derive checks that all zeros is a
//! valid value of every field), the mapping is page-aligned (at least `T`'s
//! alignment, checked) and the table owns it: `Drop` drops the slots and
//! unmaps it.

use bytemuck::Zeroable;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

pub(crate) struct ZeroTable<T> {
    ptr: NonNull<T>,
    len: usize,
}

// The table owns its slots as a `Vec` does.
unsafe impl<T: Send> Send for ZeroTable<T> {}
unsafe impl<T: Sync> Sync for ZeroTable<T> {}

impl<T: Zeroable> ZeroTable<T> {
    /// `len` zeroed slots.
    pub fn zeroed(len: usize) -> Self {
        let layout = std::alloc::Layout::array::<T>(len).expect("a table that fits the address space");
        if layout.size() == 0 {
            return ZeroTable { ptr: NonNull::dangling(), len };
        }
        let ptr = NonNull::new(map_zeroed(layout) as *mut T).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        ZeroTable { ptr, len }
    }
}

impl<T> Deref for ZeroTable<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialized slots at `ptr` (zeroed, then written
        // only through this slice), owned by the table
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> DerefMut for ZeroTable<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` is the only access
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for ZeroTable<T> {
    fn drop(&mut self) {
        let layout = std::alloc::Layout::array::<T>(self.len).expect("checked when made");
        // SAFETY: the slots are initialized and dropped once, then their
        // memory, mapped by `map_zeroed` with this layout, is given back
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len));
            if layout.size() > 0 {
                unmap(self.ptr.as_ptr() as *mut u8, layout);
            }
        }
    }
}

/// Zeroed memory for `layout` (size > 0), or null.
#[cfg(unix)]
fn map_zeroed(layout: std::alloc::Layout) -> *mut u8 {
    assert!(layout.align() <= 4096, "page-aligned mapping");
    // SAFETY: a new private anonymous mapping, touching no existing memory
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            layout.size(),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p as *mut u8
    }
}

/// # Safety
/// `p` was returned by `map_zeroed(layout)` and is not used again.
#[cfg(unix)]
unsafe fn unmap(p: *mut u8, layout: std::alloc::Layout) {
    libc::munmap(p as *mut libc::c_void, layout.size());
}

#[cfg(not(unix))]
fn map_zeroed(layout: std::alloc::Layout) -> *mut u8 {
    // SAFETY: size > 0 (checked by the caller)
    unsafe { std::alloc::alloc_zeroed(layout) }
}

#[cfg(not(unix))]
unsafe fn unmap(p: *mut u8, layout: std::alloc::Layout) {
    std::alloc::dealloc(p, layout);
}

#[cfg(test)]
mod tests {
    use super::ZeroTable;

    #[derive(bytemuck::Zeroable, Debug, PartialEq)]
    #[repr(C, align(64))]
    struct Line {
        a: u64,
        b: Option<&'static u32>,
    }

    #[test]
    fn slots_start_zeroed_keep_what_is_written_and_are_line_aligned() {
        let mut t: ZeroTable<Line> = ZeroTable::zeroed(100_000);
        assert_eq!(t.len(), 100_000);
        assert_eq!(t.as_ptr() as usize % 64, 0);
        assert!(t.iter().all(|l| *l == Line { a: 0, b: None }));
        t[77_777] = Line { a: 5, b: Some(&9) };
        assert_eq!((t[77_777].a, t[77_776].a, t[77_777].b), (5, 0, Some(&9)));
        let empty: ZeroTable<Line> = ZeroTable::zeroed(0);
        assert!(empty.is_empty());
    }
}
