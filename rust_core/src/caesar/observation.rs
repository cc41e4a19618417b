//! What one player of Caesar! sees, for learning and search. The observation is a vector of 448
//! numbers, "own" meaning the observing player's:
//! - `0..210`: the 30 borders in border order, 7 each: own token, the opponent's token, the number
//!   facing the border's first province / 6, the number facing its second / 6, flipped, own control
//!   marker on it, the opponent's;
//! - `210..372`: the 18 provinces in table order, 9 each: the bonus token on it (one-hot: none,
//!   senate, tactics, wealth, might), own control, the opponent's, control marker flipped, closed;
//! - `372..374`: Italia's dashed space, own marker, the opponent's;
//! - `374..389`: own hand by token kind (count / 2);
//! - `389..393`: own hand size / 4, the opponent's / 4, own bag size / 16, the opponent's / 16;
//! - `393..399`: hand limits / 4, Senate tokens / 6, control markers / 12, own then the opponent's;
//! - `399`: the player is to move;
//! - `400..448`: the turn under way: its placement's token (one-hot, 15) and border (one-hot, 30),
//!   its orientation (1 forward), the choices taken / 2, the draws taken / 3.
//!
//! The opponent's hand, both bags' contents and the generator are never shown. The information
//! state is the player's view (`Position::view_of`) and the turn under way (the opponent's draws
//! counted, not named); `resample` deals the opponent's hidden tokens again and seeds a new generator.

use super::board::{token_total, Bonus, Player, PROVINCE_COUNT, TOKEN_KINDS};
use super::{Caesar, Position};
use crate::chance::Chance;
use crate::decisions::Node;

pub const SIZE: usize = 448;

pub fn features(node: &Node<Caesar>, player: usize) -> Vec<f32> {
    let position = &node.position;
    let own = if player == 0 {
        Player::Caesar
    } else {
        Player::Pompey
    };
    let mut tensor = Vec::with_capacity(SIZE);
    let flag = |on: bool| f32::from(u8::from(on));
    for placed in &position.borders {
        let (first, second) = placed.map_or((0, 0), |p| if p.flipped { (0, 0) } else { p.faces() });
        tensor.extend([
            flag(placed.is_some_and(|p| p.owner == own)),
            flag(placed.is_some_and(|p| p.owner != own)),
            f32::from(first) / 6.0,
            f32::from(second) / 6.0,
            flag(placed.is_some_and(|p| p.flipped)),
            flag(placed.is_some_and(|p| p.marker == Some(own))),
            flag(placed.is_some_and(|p| p.marker == Some(own.other()))),
        ]);
    }
    for province in 0..PROVINCE_COUNT {
        let bonus = position.bonus[province];
        tensor.push(flag(bonus.is_none()));
        for kind in Bonus::ALL {
            tensor.push(flag(bonus == Some(kind)));
        }
        tensor.extend([
            flag(position.control[province] == Some(own)),
            flag(position.control[province] == Some(own.other())),
            flag(position.is_flipped(province)),
            flag(position.is_closed(province)),
        ]);
    }
    tensor.push(flag(position.italia_dashed == Some(own)));
    tensor.push(flag(position.italia_dashed == Some(own.other())));
    tensor.extend(
        position.hands[own as usize]
            .iter()
            .map(|&n| f32::from(n) / 2.0),
    );
    let (o, t) = (own as usize, own.other() as usize);
    tensor.extend([
        token_total(&position.hands[o]) as f32 / 4.0,
        token_total(&position.hands[t]) as f32 / 4.0,
        token_total(&position.bags[o]) as f32 / 16.0,
        token_total(&position.bags[t]) as f32 / 16.0,
    ]);
    for (values, scale) in [
        (position.hand_limits, 4.0),
        (position.senate, 6.0),
        (position.markers, 12.0),
    ] {
        tensor.push(f32::from(values[o]) / scale);
        tensor.push(f32::from(values[t]) / scale);
    }
    tensor.push(flag(position.active() == Some(own)));
    let mut turn = [0.0f32; TOKEN_KINDS + 30 + 3];
    if let Some((kind, border, forward)) = node.pending.placement {
        turn[usize::from(kind)] = 1.0;
        turn[TOKEN_KINDS + usize::from(border)] = 1.0;
        turn[TOKEN_KINDS + 30] = flag(forward);
    }
    turn[TOKEN_KINDS + 31] = node.pending.choices.len() as f32 / 2.0;
    turn[TOKEN_KINDS + 32] = node.pending.draws.len() as f32 / 3.0;
    tensor.extend(turn);
    debug_assert_eq!(tensor.len(), SIZE);
    tensor
}

pub fn information_state(node: &Node<Caesar>, player: usize) -> String {
    let viewer = if player == 0 {
        Player::Caesar
    } else {
        Player::Pompey
    };
    let view = serde_json::to_string(&node.position.view_of(viewer)).expect("a view serializes");
    let pending = &node.pending;
    let mover = node.position.to_move == Some(viewer);
    let draws = if mover {
        format!("{:?}", pending.draws)
    } else {
        pending.draws.len().to_string()
    };
    format!(
        "{view} | {:?} {:?} {} {draws}",
        pending.placement, pending.choices, pending.due
    )
}

/// A node that `player` cannot tell from this one: the opponent's hand dealt again from the
/// opponent's tokens not on the board (hand and bag), the opponent's pending draws drawn again, and
/// a new generator.
pub fn resample(node: &Node<Caesar>, player: usize, chance: &mut Chance) -> Node<Caesar> {
    let mut resampled = node.clone();
    let position: &mut Position = &mut resampled.position;
    let other = if player == 0 { 1 } else { 0 };
    let mut pool: Vec<u8> = Vec::new();
    for kind in 0..TOKEN_KINDS {
        let count = position.hands[other][kind] + position.bags[other][kind];
        pool.extend(std::iter::repeat_n(kind as u8, usize::from(count)));
    }
    let hand_size = token_total(&position.hands[other]) as usize;
    // Fisher-Yates on the first `hand_size` places: the new hand, the rest the bag.
    for i in 0..pool.len().min(hand_size) {
        let j = i + chance.below((pool.len() - i) as u32) as usize;
        pool.swap(i, j);
    }
    position.hands[other] = [0; TOKEN_KINDS];
    position.bags[other] = [0; TOKEN_KINDS];
    for (i, &kind) in pool.iter().enumerate() {
        let side = if i < hand_size {
            &mut position.hands[other]
        } else {
            &mut position.bags[other]
        };
        side[usize::from(kind)] += 1;
    }
    let opponent_moving = position.to_move.map(|p| p as usize) == Some(other);
    if opponent_moving && !resampled.pending.draws.is_empty() {
        let mut bag = position.bags[other];
        for draw in resampled.pending.draws.iter_mut() {
            let mut index = chance.below(token_total(&bag));
            for (kind, count) in bag.iter_mut().enumerate() {
                if index < u32::from(*count) {
                    *draw = kind as u8;
                    *count -= 1;
                    break;
                }
                index -= u32::from(*count);
            }
        }
    }
    let seed = u64::from(chance.below(u32::MAX)) << 32 | u64::from(chance.below(u32::MAX));
    position.chance = Chance::from_seed(seed, None);
    Caesar::replay_pending(&mut resampled);
    resampled
}
