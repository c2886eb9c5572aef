//! Simulated time: integer picoseconds (`u64`), so event order never depends on
//! floating point. `u64` picoseconds covers about 213 days of simulated time.

/// Simulated time or duration in picoseconds.
pub type Time = u64;

pub const PS: Time = 1;
pub const NS: Time = 1_000;
pub const US: Time = 1_000_000;
pub const MS: Time = 1_000_000_000;
pub const SEC: Time = 1_000_000_000_000;

/// Time to serialize `bytes` onto a link of `rate_bps` bits/s, rounded up to a
/// whole picosecond (so a link is never faster than its rate).
#[inline]
pub fn ser_time(bytes: u64, rate_bps: u64) -> Time {
    ser_div(bytes, rate_bps, true)
}

/// [`ser_time`] rounded down (the ns-3 convention behind `network.time_quantum`).
#[inline]
pub fn ser_time_floor(bytes: u64, rate_bps: u64) -> Time {
    ser_div(bytes, rate_bps, false)
}

/// `bytes * 8 * SEC / rate_bps`, rounded up or down.
#[inline]
fn ser_div(bytes: u64, rate_bps: u64, up: bool) -> Time {
    debug_assert!(rate_bps > 0);
    if bytes <= u64::MAX / (8 * SEC) {
        // a packet: the product fits 64 bits, and a 64-bit division is
        // several times cheaper than a 128-bit one
        let num = bytes * 8 * SEC;
        if up {
            num.div_ceil(rate_bps)
        } else {
            num / rate_bps
        }
    } else {
        let (num, rate) = (bytes as u128 * 8 * SEC as u128, rate_bps as u128);
        (if up { num.div_ceil(rate) } else { num / rate }) as Time
    }
}

/// Seconds as f64 (for reports only, never for event order).
#[inline]
pub fn to_secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// Microseconds as f64 (for reports only).
#[inline]
pub fn to_us(t: Time) -> f64 {
    t as f64 / US as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ser_time_exact_and_rounded_up() {
        assert_eq!(ser_time(1000, 100_000_000_000), 80 * NS);
        assert_eq!(ser_time(1, 3), 2_666_666_666_667);
        assert_eq!(ser_time(1048, 400_000_000_000), 20_960);
    }

    #[test]
    fn ser_time_is_the_same_on_both_sides_of_the_64_bit_limit() {
        let num = |b: u64| b as u128 * 8 * SEC as u128;
        let edge = u64::MAX / (8 * SEC);
        for b in [1, 1_048, 9_000, edge - 1, edge, edge + 1, 1 << 40] {
            for r in [1_000, 3_000_000_007, 25_000_000_000, 100_000_000_000, 400_000_000_000] {
                assert_eq!(ser_time(b, r), num(b).div_ceil(r as u128) as Time, "{b} bytes at {r} bps");
                assert_eq!(ser_time_floor(b, r), (num(b) / r as u128) as Time, "{b} bytes at {r} bps, down");
            }
        }
    }
}
