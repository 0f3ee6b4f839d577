//! PNG encoding on two threads: the image is split into a top and a bottom
//! band, each Paeth-filtered and compressed with fdeflate on its own thread,
//! and the two deflate streams are joined into one.
//!
//! The `png` crate encodes on one thread (Paeth + fdeflate, 0.94 ms for a
//! 1280×720 capture in criterion, 1.0–2.0 ms right after a capture), and a
//! shot spends that time after the capture has come back. Two threads: 0.58
//! ms in criterion (`benches/render.rs`); in whole shots the median gain is
//! smaller, 0.1–0.5 ms, as right after a capture the second core is often
//! still busy with Chromium (ARCHITECTURE.md).
//!
//! Joining: an fdeflate stream is a zlib header, one dynamic-Huffman block
//! (header, data, end-of-block code), zero padding to a byte and the Adler-32
//! of its data. A band's block is copied bit for bit up to the end of its
//! end-of-block code, with the block's "final" bit cleared on all but the
//! last band, the next band's block following at the very next bit. The end
//! of the end-of-block code is the highest set bit before the Adler-32: in
//! fdeflate's code table (checked by a test) its last bit is a 1, and the
//! padding after it is zeros. The Adler-32s are combined.
//!
//! Rows are filtered exactly as the `png` crate's encoder filters them (Paeth,
//! previous row of the whole image), so the decoded pixels are identical.

use std::io::Cursor;

use crate::error::{Error, Result};

/// Below this many rows per band, one thread (the `png` crate) is as fast.
const MIN_BAND_ROWS: usize = 64;

/// Encode 8-bit RGB rows (`width * 3` bytes each) as a PNG into `out` (which
/// must be empty), on two threads. `false`, with `out` left empty, when one
/// thread is as good (a short image, one core, `PINPOINT_PNG_THREADS=1`) or
/// the result would not be smaller than stored data: the caller then uses
/// the `png` crate, which falls back to stored blocks.
pub(super) fn encode_rgb(data: &[u8], width: u32, height: u32, out: &mut Vec<u8>) -> Result<bool> {
    let (w, h) = (width as usize, height as usize);
    let stride = w * 3;
    if w == 0 || h < 2 * MIN_BAND_ROWS || data.len() != stride * h || threads() < 2 {
        return Ok(false);
    }
    let split = h / 2;
    let (top, bottom) = std::thread::scope(|s| {
        let bottom = s.spawn(|| compress_band(data, stride, split, h));
        let top = compress_band(data, stride, 0, split);
        (top, bottom.join())
    });
    let bottom = bottom.map_err(|_| Error::Internal("PNG encoder thread panicked".into()))?;
    let bands = [top?, bottom?];
    let mut ihdr = [0u8; 13];
    ihdr[..4].copy_from_slice(&width.to_be_bytes());
    ihdr[4..8].copy_from_slice(&height.to_be_bytes());
    ihdr[8] = 8; // bit depth
    ihdr[9] = 2; // RGB; compression, filter method and interlace are 0
    out.clear();
    out.reserve(bands.iter().map(Vec::len).sum::<usize>() + 64);
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    chunk(out, b"IHDR", &ihdr)?;
    // IDAT: the joined stream written in place, its length and CRC after.
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(b"IDAT");
    let lens = [(stride + 1) * split, (stride + 1) * (h - split)];
    join_streams(&bands, &lens, out)?;
    let zlib_len = out.len() - at - 8;
    let raw_len = (stride + 1) * h;
    let len = u32::try_from(zlib_len)
        .ok()
        .filter(|&n| n <= i32::MAX as u32);
    let (Some(len), true) = (len, zlib_len < raw_len + raw_len / 65_535 * 5 + 11) else {
        out.clear();
        return Ok(false);
    };
    out[at..at + 4].copy_from_slice(&len.to_be_bytes());
    let crc = crc32fast::hash(&out[at + 4..]);
    out.extend_from_slice(&crc.to_be_bytes());
    chunk(out, b"IEND", &[])?;
    Ok(true)
}

/// Threads for a PNG encode: `PINPOINT_PNG_THREADS` (1 or 2, read on every
/// call), else 2 unless the machine has a single core.
fn threads() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    std::env::var("PINPOINT_PNG_THREADS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| {
            *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        })
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) -> Result<()> {
    let len = u32::try_from(data.len())
        .ok()
        .filter(|&n| n <= i32::MAX as u32)
        .ok_or_else(|| Error::Image("PNG chunk too large".into()))?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(&crc.finalize().to_be_bytes());
    Ok(())
}

/// Rows `from..to`, Paeth-filtered against the row above (zeros above row 0),
/// as one fdeflate zlib stream.
fn compress_band(data: &[u8], stride: usize, from: usize, to: usize) -> Result<Vec<u8>> {
    let bad = |e: std::io::Error| Error::Image(format!("cannot encode PNG: {e}"));
    let guess = (to - from) * stride / 16;
    let mut c = fdeflate::Compressor::new(Cursor::new(Vec::with_capacity(guess))).map_err(bad)?;
    let zeros = vec![0u8; stride];
    let mut line = vec![0u8; stride + 1];
    line[0] = 4; // Paeth
    for y in from..to {
        let cur = &data[y * stride..(y + 1) * stride];
        let prev = if y == 0 {
            &zeros[..]
        } else {
            &data[(y - 1) * stride..y * stride]
        };
        paeth_row(prev, cur, &mut line[1..]);
        c.write_data(&line).map_err(bad)?;
    }
    Ok(c.finish().map_err(bad)?.into_inner())
}

/// PNG's Paeth predictor (RFC 2083 6.6): the neighbour (left `a`, up `b`,
/// up-left `c`) closest to a + b − c, ties in that order. The formulation is
/// FPNGE's (Luca Versari), as the `png` crate's encoder uses it: all in u8, so
/// that the row loop vectorises.
#[inline(always)]
fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let pa = b.max(c) - c.min(b);
    let pb = a.max(c) - c.min(a);
    // With c outside [min(a, b), max(a, b)], pc exceeds pa and pb.
    let pc = if (a < c) == (c < b) {
        pa.max(pb) - pa.min(pb)
    } else {
        255
    };
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

/// Filter one row of 3-byte pixels: `out[i] = cur[i] - paeth(left, up, up-left)`.
fn paeth_row(prev: &[u8], cur: &[u8], out: &mut [u8]) {
    const BPP: usize = 3;
    const CHUNK: usize = 32;
    let n = cur.len().min(prev.len()).min(out.len());
    for i in 0..n.min(BPP) {
        out[i] = cur[i].wrapping_sub(paeth(0, prev[i], 0));
    }
    if n <= BPP {
        return;
    }
    let mut o = out[BPP..n].chunks_exact_mut(CHUNK);
    let mut x = cur[BPP..n].chunks_exact(CHUNK);
    let mut a = cur[..n - BPP].chunks_exact(CHUNK);
    let mut b = prev[BPP..n].chunks_exact(CHUNK);
    let mut c = prev[..n - BPP].chunks_exact(CHUNK);
    for ((((o, x), a), b), c) in (&mut o).zip(&mut x).zip(&mut a).zip(&mut b).zip(&mut c) {
        for i in 0..CHUNK {
            o[i] = x[i].wrapping_sub(paeth(a[i], b[i], c[i]));
        }
    }
    let rest = o
        .into_remainder()
        .iter_mut()
        .zip(x.remainder())
        .zip(a.remainder())
        .zip(b.remainder())
        .zip(c.remainder());
    for ((((o, &x), &a), &b), &c) in rest {
        *o = x.wrapping_sub(paeth(a, b, c));
    }
}

/// Join fdeflate zlib streams (their data lengths in `lens`) into one.
fn join_streams(streams: &[Vec<u8>], lens: &[usize], out: &mut Vec<u8>) -> Result<()> {
    let broken = || Error::Internal("PNG encoder produced an unexpected stream".into());
    let mut bits = BitWriter { out, nbits: 0 };
    let mut adler: Option<u32> = None;
    for (i, (s, &len)) in streams.iter().zip(lens).enumerate() {
        // zlib header (2) + at least one byte of block + Adler-32 (4).
        if s.len() < 7 {
            return Err(broken());
        }
        if i == 0 {
            bits.out.extend_from_slice(&s[..2]);
        }
        let body = &s[2..s.len() - 4];
        let end = last_set_bit(body).ok_or_else(broken)? + 1;
        let last = i + 1 == streams.len();
        bits.append(body, end, !last);
        let a = u32::from_be_bytes([
            s[s.len() - 4],
            s[s.len() - 3],
            s[s.len() - 2],
            s[s.len() - 1],
        ]);
        adler = Some(match adler {
            None => a,
            Some(prev) => adler32_combine(prev, a, len),
        });
    }
    bits.flush();
    let adler = adler.ok_or_else(broken)?;
    bits.out.extend_from_slice(&adler.to_be_bytes());
    Ok(())
}

/// Index (LSB-first bit order, as deflate writes) of the last set bit.
fn last_set_bit(b: &[u8]) -> Option<usize> {
    let i = b.iter().rposition(|&x| x != 0)?;
    Some(i * 8 + 7 - b[i].leading_zeros() as usize)
}

/// Appends bit strings (deflate's LSB-first order) to a byte vector.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Bits used in the last byte of `out` (0 = byte-aligned).
    nbits: u32,
}

impl BitWriter<'_> {
    /// Append the first `end` bits of `src`; with `not_final`, its first bit
    /// (the block's BFINAL) cleared.
    fn append(&mut self, src: &[u8], end: usize, not_final: bool) {
        let full = end / 8;
        let rest = (end % 8) as u32;
        let first = |i: usize, b: u8| if i == 0 && not_final { b & !1 } else { b };
        let bytes = src[..full].iter().enumerate().map(|(i, &b)| first(i, b));
        let n = self.nbits;
        self.out.reserve(full + 2);
        if n == 0 {
            self.out.extend(bytes);
        } else {
            // Each source byte fills the top of the pending byte and leaves
            // its high bits pending.
            let mut acc = self.out.pop().unwrap_or(0);
            for b in bytes {
                self.out.push(acc | (b << n));
                acc = b >> (8 - n);
            }
            self.out.push(acc);
        }
        if rest > 0 {
            let p = first(full, src[full]) & ((1u16 << rest) - 1) as u8;
            self.push(p, rest);
        }
    }

    /// Append the low `n` bits of `byte` (the others are zero).
    fn push(&mut self, byte: u8, n: u32) {
        if self.nbits == 0 {
            self.out.push(byte);
        } else {
            if let Some(last) = self.out.last_mut() {
                *last |= byte << self.nbits;
            }
            if self.nbits + n > 8 {
                self.out.push(byte >> (8 - self.nbits));
            }
        }
        self.nbits = (self.nbits + n) % 8;
    }

    /// Pad to a byte (zeros are already there).
    fn flush(&mut self) {
        self.nbits = 0;
    }
}

/// Adler-32 of `a ++ b` from the Adler-32s of `a` and `b` (`len_b` bytes).
fn adler32_combine(adler_a: u32, adler_b: u32, len_b: usize) -> u32 {
    const BASE: u64 = 65_521;
    let rem = len_b as u64 % BASE;
    let a1 = u64::from(adler_a & 0xffff);
    let a2 = u64::from(adler_a >> 16);
    let b1 = u64::from(adler_b & 0xffff);
    let b2 = u64::from(adler_b >> 16);
    let s1 = (a1 + b1 + BASE - 1) % BASE;
    let s2 = (rem * a1 % BASE + a2 + b2 + BASE - rem) % BASE;
    (s1 | (s2 << 16)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adler(data: &[u8]) -> u32 {
        let (mut a, mut b) = (1u32, 0u32);
        for &x in data {
            a = (a + u32::from(x)) % 65_521;
            b = (b + a) % 65_521;
        }
        (b << 16) | a
    }

    #[test]
    fn adler_combine_matches_one_pass() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 31 % 251) as u8).collect();
        for cut in [0, 1, 5552, 65_521, 65_522, 100_000, 199_999, 200_000] {
            let (a, b) = data.split_at(cut);
            assert_eq!(
                adler32_combine(adler(a), adler(b), b.len()),
                adler(&data),
                "{cut}"
            );
        }
    }

    #[test]
    fn end_of_block_code_ends_with_a_set_bit() {
        // The join relies on it: an empty fdeflate stream is its block header
        // and end-of-block code; both end with a 1 bit whatever the padding.
        for data in [&[][..], &[0], &[1, 2, 3], &[0; 300]] {
            let mut c = fdeflate::Compressor::new(Vec::new()).unwrap_or_else(|e| panic!("{e}"));
            c.write_data(data).unwrap_or_else(|e| panic!("{e}"));
            let s = c.finish().unwrap_or_else(|e| panic!("{e}"));
            let body = &s[2..s.len() - 4];
            let end = last_set_bit(body).unwrap_or(0) + 1;
            // Everything after the last set bit is padding within the last byte.
            assert_eq!(end.div_ceil(8), body.len(), "{data:?}");
            // Re-joined alone, the stream still inflates to the data.
            let mut joined = Vec::new();
            join_streams(std::slice::from_ref(&s), &[data.len()], &mut joined)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(joined, s);
        }
    }

    #[test]
    fn bit_writer_matches_a_bit_by_bit_copy() {
        // Every start offset and length mod 8, against a plain bit list.
        let src: Vec<u8> = (0..40u32).map(|i| (i * 73 + 19) as u8).collect();
        for lead in 0..8usize {
            for end in [1usize, 7, 8, 9, 63, 64, 65, 200, 319, 320] {
                for not_final in [false, true] {
                    let mut out = Vec::new();
                    let mut w = BitWriter {
                        out: &mut out,
                        nbits: 0,
                    };
                    w.append(&[0xff], lead, false);
                    w.append(&src, end, not_final);
                    let nbits = w.nbits as usize;
                    let bit = |b: &[u8], i: usize| (b[i / 8] >> (i % 8)) & 1;
                    let mut want: Vec<u8> = vec![1; lead];
                    want.extend(
                        (0..end).map(|i| if i == 0 && not_final { 0 } else { bit(&src, i) }),
                    );
                    let got: Vec<u8> = (0..lead + end).map(|i| bit(&out, i)).collect();
                    assert_eq!(got, want, "lead {lead} end {end} not_final {not_final}");
                    assert_eq!(out.len(), (lead + end).div_ceil(8));
                    assert_eq!(nbits, (lead + end) % 8);
                    // Bits past the end are zero (the padding).
                    assert!((lead + end..out.len() * 8).all(|i| bit(&out, i) == 0));
                }
            }
        }
    }

    /// The two-thread PNG, or `None` when it falls back (and `out` stays empty).
    fn two_threads(data: &[u8], w: u32, h: u32) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let done = encode_rgb(data, w, h, &mut out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(done, !out.is_empty());
        done.then_some(out)
    }

    fn png_crate_decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
        let d = png::Decoder::new(Cursor::new(bytes));
        let mut r = d.read_info().unwrap_or_else(|e| panic!("{e}"));
        let mut buf = vec![0; r.output_buffer_size().unwrap_or(0)];
        let info = r.next_frame(&mut buf).unwrap_or_else(|e| panic!("{e}"));
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    #[test]
    fn two_band_png_decodes_to_the_same_pixels() {
        // Noise, flat runs and gradients; odd sizes so bands and rows are uneven.
        for (w, h) in [(1280u32, 720u32), (333, 129), (2, 400), (517, 1001)] {
            let mut seed = 0x9e37_79b9u32 ^ w ^ (h << 8);
            let data: Vec<u8> = (0..w as usize * h as usize * 3)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    let y = i / (w as usize * 3);
                    match y % 5 {
                        0 => (seed >> 24) as u8,
                        1 | 2 => 240,
                        _ => (i % 256) as u8,
                    }
                })
                .collect();
            let png = two_threads(&data, w, h).unwrap_or_else(|| panic!("{w}x{h} fell back"));
            let (dw, dh, px) = png_crate_decode(&png);
            assert_eq!((dw, dh), (w, h));
            assert!(px == data, "{w}x{h}: pixels differ");
            // `image` (its own checks, CRCs and Adler-32 included) agrees.
            let img = image::load_from_memory(&png).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(img.into_rgb8().into_raw(), data);
        }
    }

    #[test]
    fn paeth_rows_match_the_png_crate() {
        // One band through the png crate with the same filter: same bytes inflated.
        let (w, h) = (97u32, 130u32);
        let data: Vec<u8> = (0..w as usize * h as usize * 3)
            .map(|i| {
                let (x, y) = (i % (w as usize * 3), i / (w as usize * 3));
                (x * 3 + y * 5 + (i * 7919) % 7) as u8
            })
            .collect();
        let mut theirs = Vec::new();
        {
            let mut e = png::Encoder::new(&mut theirs, w, h);
            e.set_color(png::ColorType::Rgb);
            e.set_depth(png::BitDepth::Eight);
            e.set_compression(png::Compression::Fast);
            e.set_filter(png::Filter::Paeth);
            let mut wr = e.write_header().unwrap_or_else(|e| panic!("{e}"));
            wr.write_image_data(&data).unwrap_or_else(|e| panic!("{e}"));
        }
        let ours = two_threads(&data, w, h).unwrap_or_else(|| panic!("fell back"));
        let idat = |png: &[u8]| {
            let mut i = 8;
            let mut z = Vec::new();
            while i + 8 <= png.len() {
                let n = u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]) as usize;
                if &png[i + 4..i + 8] == b"IDAT" {
                    z.extend_from_slice(&png[i + 8..i + 8 + n]);
                }
                i += 12 + n;
            }
            let mut raw = vec![0u8; (w as usize * 3 + 1) * h as usize];
            let mut d = fdeflate::Decompressor::new();
            let (_, n) = d
                .read(&z, &mut raw, 0, true)
                .unwrap_or_else(|e| panic!("{e:?}"));
            assert_eq!(n, raw.len());
            raw
        };
        assert!(idat(&ours) == idat(&theirs), "filtered rows differ");
    }

    #[test]
    fn short_or_mismatched_input_falls_back() {
        assert_eq!(two_threads(&[0; 30], 10, 1), None);
        assert_eq!(two_threads(&[0; 10], 100, 200), None);
        assert_eq!(two_threads(&[], 0, 200), None);
        // Noise does not compress: stored data would be smaller.
        let mut seed = 0x1234_5679u32;
        let noise: Vec<u8> = (0..300 * 200 * 3)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                (seed >> 24) as u8
            })
            .collect();
        assert_eq!(two_threads(&noise, 300, 200), None);
    }
}

#[cfg(test)]
mod timing {
    #[test]
    #[ignore]
    fn probe_band_timing() {
        let png = std::fs::read("benches/data/capture-demo.png").unwrap();
        let img = crate::render::decode(&png, Vec::new()).unwrap();
        let (w, h) = img.dimensions();
        let stride = w as usize * 3;
        let data: &[u8] = &img;
        let t = |f: &dyn Fn()| {
            let mut v: Vec<f64> = (0..101)
                .map(|_| {
                    let t = std::time::Instant::now();
                    f();
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            v.sort_by(f64::total_cmp);
            v[50]
        };
        let whole = t(&|| {
            super::compress_band(data, stride, 0, h as usize).unwrap();
        });
        let half = t(&|| {
            super::compress_band(data, stride, 0, h as usize / 2).unwrap();
        });
        let filter_only = t(&|| {
            let mut line = vec![0u8; stride];
            for y in 1..h as usize {
                super::paeth_row(
                    &data[(y - 1) * stride..y * stride],
                    &data[y * stride..(y + 1) * stride],
                    &mut line,
                );
                std::hint::black_box(&line);
            }
        });
        let two = t(&|| {
            let mut out = Vec::new();
            assert!(super::encode_rgb(data, w, h, &mut out).unwrap());
        });
        let spawn = t(&|| {
            std::thread::scope(|s| {
                s.spawn(|| 1).join().unwrap();
            });
        });
        println!("whole {whole:.3} half {half:.3} filter-only {filter_only:.3} two-thread {two:.3} spawn {spawn:.3}");
    }
}
