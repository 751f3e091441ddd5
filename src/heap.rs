//! The worker's allocator: the platform's (`dlmalloc` on wasm32), with a free list per size
//! class in front of it for blocks up to 8 KiB.
//!
//! Grounding a long report makes about 10,000 small allocations and as many frees, most of a
//! few dozen bytes (words, lists of a finding's words, reasons), each through `dlmalloc`'s bins
//! in wasm; in the profile of the worker the allocator was about a tenth of the route. A small
//! block freed here goes onto the list of its class and the next allocation of that class takes
//! it back: a pop and a push, no bins. A block of a class is never handed back to the platform's
//! allocator, so the memory the lists hold is at most what the busiest request held of each
//! class at once, and it is used again by the next request (the isolate's memory stays flat
//! after warm-up; `make bench` reports it).

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// The step between the small size classes, and the alignment every block of a class has.
const STEP: usize = 16;
/// How many small classes, `STEP` bytes apart: blocks of up to `STEP * SMALL` bytes.
const SMALL: usize = 32;
/// How many larger classes, each twice the size of the one before (1, 2, 4 and 8 KiB): the
/// lists of a grounding's words, clauses and answer parts that outgrow the small classes.
const LARGER: usize = 4;
/// The largest block kept on a list.
const MAX: usize = (STEP * SMALL) << LARGER;
const CLASSES: usize = SMALL + LARGER;

/// The class of a layout the lists keep (sizes `1..=16` are class 0, `17..=32` class 1, ...,
/// `497..=512` class 31, `513..=1024` class 32, ..., `4097..=8192` class 35), or `None` for
/// one they do not (larger, more aligned, or empty).
fn class(layout: Layout) -> Option<usize> {
    let size = layout.size();
    if size == 0 || size > MAX || layout.align() > STEP {
        return None;
    }
    if size <= STEP * SMALL {
        return Some((size - 1) / STEP);
    }
    // 513..=1024 -> 0, 1025..=2048 -> 1, ...: the bits of `size - 1` past those of 512.
    let doublings = (usize::BITS - (size - 1).leading_zeros()) as usize - 10;
    Some(SMALL + doublings)
}

/// The layout every block of `class` is allocated with from the platform's allocator.
fn class_layout(class: usize) -> Layout {
    let size = if class < SMALL {
        (class + 1) * STEP
    } else {
        (STEP * SMALL) << (class - SMALL + 1)
    };
    // At most MAX bytes with an alignment of STEP, a power of two: always valid.
    Layout::from_size_align(size, STEP).unwrap_or_else(|_| unreachable!())
}

/// `inner` with a free list per size class in front of it.
pub struct Cached<A> {
    inner: A,
    /// The first free block of each class; each free block holds the address of the next.
    free: UnsafeCell<[*mut u8; CLASSES]>,
}

impl<A> Cached<A> {
    pub const fn new(inner: A) -> Self {
        Self {
            inner,
            free: UnsafeCell::new([ptr::null_mut(); CLASSES]),
        }
    }
}

// SAFETY: the worker's wasm32 target has no threads (no `atomics` feature), so the lists are
// only ever touched by one thread. Elsewhere the type is not `Sync` and cannot be global.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl<A: Sync> Sync for Cached<A> {}

// Each method is one function, called where memory is allocated or freed: inlined into every
// place a value is dropped, the free-list push alone made the wasm 11% larger.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Cached<A> {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class(layout) else {
            return self.inner.alloc(layout);
        };
        let free = &mut *self.free.get();
        let head = free[class];
        if head.is_null() {
            return self.inner.alloc(class_layout(class));
        }
        free[class] = *(head as *mut *mut u8);
        head
    }

    #[inline(never)]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let Some(class) = class(layout) else {
            return self.inner.dealloc(block, layout);
        };
        let free = &mut *self.free.get();
        *(block as *mut *mut u8) = free[class];
        free[class] = block;
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if class(layout).is_none() {
            // The platform's allocator knows when fresh memory is already zero.
            return self.inner.alloc_zeroed(layout);
        }
        let block = self.alloc(layout);
        if !block.is_null() {
            ptr::write_bytes(block, 0, layout.size());
        }
        block
    }

    #[inline(never)]
    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        match (class(layout), class(new_layout)) {
            // Both large: the platform's allocator may grow the block in place.
            (None, None) => self.inner.realloc(block, layout, new_size),
            // Still the same class: the block already has room.
            (Some(old), Some(new)) if old == new => block,
            _ => {
                let moved = self.alloc(new_layout);
                if !moved.is_null() {
                    ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                    self.dealloc(block, layout);
                }
                moved
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::System;

    /// A small deterministic generator (xorshift), so the test needs no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn classes_cover_small_layouts_and_leave_the_rest_to_the_platform() {
        let layout = |size, align| Layout::from_size_align(size, align).unwrap();
        assert_eq!(class(layout(1, 1)), Some(0));
        assert_eq!(class(layout(16, 8)), Some(0));
        assert_eq!(class(layout(17, 1)), Some(1));
        assert_eq!(class(layout(512, 16)), Some(31));
        assert_eq!(class(layout(513, 1)), Some(32));
        assert_eq!(class(layout(1024, 8)), Some(32));
        assert_eq!(class(layout(1025, 8)), Some(33));
        assert_eq!(class(layout(8192, 8)), Some(35));
        assert_eq!(class(layout(8193, 1)), None);
        assert_eq!(class(layout(0, 1)), None);
        assert_eq!(class(layout(64, 32)), None);
        // Every size fits its class's blocks, and the class is the smallest that fits it.
        for size in 1..=MAX {
            let c = class(layout(size, 1)).unwrap();
            assert!(c < CLASSES);
            assert!(class_layout(c).size() >= size, "{size}");
            assert!(c == 0 || class_layout(c - 1).size() < size, "{size}");
            assert_eq!(class(class_layout(c)), Some(c));
        }
    }

    /// Blocks allocated, grown, shrunk and freed in a random order keep their contents, never
    /// overlap, and a freed block of a class is what the next allocation of that class gets.
    #[test]
    fn blocks_keep_their_bytes_and_never_overlap_through_alloc_realloc_and_free() {
        let heap = Cached::new(System);
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // (address, size, align, fill byte)
        let mut live: Vec<(*mut u8, usize, usize, u8)> = Vec::new();
        let sizes = [
            1, 7, 16, 17, 31, 48, 100, 250, 511, 512, 513, 700, 2000, 8192, 8193, 20000,
        ];
        for step in 0..20_000u32 {
            let roll = rng.next();
            if live.is_empty() || roll % 3 == 0 {
                let size = sizes[(roll >> 8) as usize % sizes.len()];
                let align = [1, 8, 16, 32][(roll >> 16) as usize % 4];
                let layout = Layout::from_size_align(size, align).unwrap();
                let block = unsafe {
                    if roll & 0x10 == 0 {
                        heap.alloc(layout)
                    } else {
                        heap.alloc_zeroed(layout)
                    }
                };
                assert!(!block.is_null());
                assert_eq!(block as usize % align, 0, "alignment of {size} at {align}");
                if roll & 0x10 != 0 {
                    let bytes = unsafe { std::slice::from_raw_parts(block, size) };
                    assert!(bytes.iter().all(|&b| b == 0), "zeroed {size}");
                }
                let fill = step as u8;
                unsafe { ptr::write_bytes(block, fill, size) };
                live.push((block, size, align, fill));
            } else if roll % 3 == 1 {
                let at = (roll >> 8) as usize % live.len();
                let (block, size, align, fill) = live.swap_remove(at);
                let new_size = sizes[(roll >> 20) as usize % sizes.len()];
                let layout = Layout::from_size_align(size, align).unwrap();
                let moved = unsafe { heap.realloc(block, layout, new_size) };
                assert!(!moved.is_null());
                assert_eq!(moved as usize % align, 0);
                let kept = unsafe { std::slice::from_raw_parts(moved, size.min(new_size)) };
                assert!(
                    kept.iter().all(|&b| b == fill),
                    "realloc {size} -> {new_size}"
                );
                unsafe { ptr::write_bytes(moved, fill, new_size) };
                live.push((moved, new_size, align, fill));
            } else {
                let at = (roll >> 8) as usize % live.len();
                let (block, size, align, fill) = live.swap_remove(at);
                let bytes = unsafe { std::slice::from_raw_parts(block, size) };
                assert!(bytes.iter().all(|&b| b == fill), "contents of {size}");
                let layout = Layout::from_size_align(size, align).unwrap();
                unsafe { heap.dealloc(block, layout) };
                if let Some(c) = class(layout) {
                    // The freed block is the next one of its class.
                    let again = unsafe { heap.alloc(class_layout(c)) };
                    assert_eq!(again, block);
                    unsafe { heap.dealloc(again, class_layout(c)) };
                }
            }
            // No two live blocks overlap.
            if step % 1_000 == 0 {
                let mut spans: Vec<(usize, usize)> = live
                    .iter()
                    .map(|&(b, s, ..)| (b as usize, b as usize + s))
                    .collect();
                spans.sort();
                assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0));
            }
        }
        for (block, size, align, _) in live {
            unsafe { heap.dealloc(block, Layout::from_size_align(size, align).unwrap()) };
        }
    }
}
