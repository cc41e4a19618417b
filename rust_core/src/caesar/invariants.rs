//! The named consistency checks of a position read from a state: each ties some of its parts
//! together.

use super::board::{
    border_id, province_code, token_code, token_total, Bonus, Player, BORDERS, BORDER_COUNT,
    CONTROL_MARKERS, IT, PROVINCE_COUNT, PROVINCE_MASK, START_HAND_LIMIT, TOKENS, TOKEN_KINDS,
};
use super::Position;
use crate::error::{Error, Result};

/// Everything that ties the parts of a state together: each named check below, in this order (the
/// first refusal found is the one reported).
pub(super) fn check_consistency(position: &Position) -> Result<()> {
    let winner = winner_fits_turn(position)?;
    let mut short_hand_seen = false;
    for player in Player::BOTH {
        tokens_add_up(position, player)?;
        // Only the turn that gave someone the 12th marker skips the draw: one hand at most.
        let may_be_short = winner.is_some() && !short_hand_seen;
        short_hand_seen |= hand_fits_limit(position, player, may_be_short)?;
    }
    let on_board = bonuses_fit_closures(position, winner)?;
    bonus_counts_fit(&on_board)?;
    taken_bonuses_cover_their_use(position, &on_board)?;
    italia_dashed_fits_control(position, winner)?;
    border_markers_fit_control(position, winner)?;
    for player in Player::BOTH {
        markers_placed_fit_board(position, player)?;
    }
    turns_fit_tactics(position, &on_board)
}

/// The game is won exactly when a player has placed 12 markers, and then nobody is to move: the
/// winner, if any.
fn winner_fits_turn(position: &Position) -> Result<Option<Player>> {
    let winners: Vec<Player> = Player::BOTH
        .into_iter()
        .filter(|p| position.markers[*p as usize] >= CONTROL_MARKERS)
        .collect();
    match (winners.as_slice(), position.to_move) {
        ([], Some(_)) => Ok(None),
        ([winner], None) => Ok(Some(*winner)),
        ([], None) => Err(Error::invalid_state(
            "to_move",
            "nobody is to move only once a player has placed 12 control markers",
        )),
        ([winner], Some(_)) => Err(Error::invalid_state(
            "to_move",
            format!(
                "{} has placed 12 control markers: the game is over and nobody is to move",
                winner.name()
            ),
        )),
        _ => Err(Error::invalid_state(
            "markers",
            "the game ends at the first 12th marker: both players cannot have 12",
        )),
    }
}

/// Each of `player`'s 16 tokens is in the bag, in hand or on the board.
fn tokens_add_up(position: &Position, player: Player) -> Result<()> {
    let p = player as usize;
    let mut on_board = [0u8; TOKEN_KINDS];
    for placed in position
        .borders
        .iter()
        .flatten()
        .filter(|t| t.owner == player)
    {
        on_board[placed.kind as usize] += 1;
    }
    for kind in 0..TOKEN_KINDS {
        let (bag, hand, board) = (
            position.bags[p][kind],
            position.hands[p][kind],
            on_board[kind],
        );
        if u32::from(bag) + u32::from(hand) + u32::from(board) != u32::from(TOKENS[kind].4) {
            return Err(Error::invalid_state(
                format!("bags.{}", player.name()),
                format!(
                    "{} has {} {} in all, not {}: {bag} in the bag, {hand} in hand, {board} on the board",
                    player.name(),
                    TOKENS[kind].4,
                    token_code(kind),
                    u32::from(bag) + u32::from(hand) + u32::from(board)
                ),
            ));
        }
    }
    Ok(())
}

/// `player`'s hand is not above its limit, and every turn ends with a draw up to the limit, so it is
/// below only when `may_be_short` or the bag is empty. Whether it is short of a refill.
fn hand_fits_limit(position: &Position, player: Player, may_be_short: bool) -> Result<bool> {
    let p = player as usize;
    let (hand, limit) = (
        token_total(&position.hands[p]),
        u32::from(position.hand_limits[p]),
    );
    let field = || format!("hands.{}", player.name());
    if hand > limit {
        return Err(Error::invalid_state(
            field(),
            format!("{hand} tokens in hand, above the hand limit {limit}"),
        ));
    }
    let short = hand < limit && token_total(&position.bags[p]) > 0;
    if short && !may_be_short {
        return Err(Error::invalid_state(
            field(),
            format!("{hand} tokens in hand below the limit {limit} while the bag has tokens: the hand is refilled at the end of each turn"),
        ));
    }
    Ok(short)
}

/// Bonus tokens: taken exactly when the province closed (a winning placement may leave its second
/// closure unresolved); and control only of a closed province, fitting its sums. The bonus tokens
/// still on the board, by kind.
fn bonuses_fit_closures(position: &Position, winner: Option<Player>) -> Result<[u8; 4]> {
    let mut unresolved = 0;
    let mut on_board = [0u8; 4];
    for q in 0..PROVINCE_COUNT {
        let code = province_code(q);
        let closed = position.is_closed(q);
        if let Some(bonus) = position.bonus[q] {
            on_board[bonus as usize] += 1;
            if closed {
                unresolved += 1;
                if winner.is_none() || unresolved > 1 || position.control[q].is_some() {
                    return Err(Error::invalid_state(
                        format!("provinces.{code}.bonus"),
                        format!("{code} is closed, so its closer took its bonus token"),
                    ));
                }
            }
        } else if !closed {
            return Err(Error::invalid_state(
                format!("provinces.{code}.bonus"),
                format!("{code} is not closed, so its bonus token is still on it"),
            ));
        }
        control_fits_closure(position, q)?;
    }
    Ok(on_board)
}

/// Nobody controls a province before it closes; a resolved one's control fits its sums.
fn control_fits_closure(position: &Position, q: usize) -> Result<()> {
    let closed = position.is_closed(q);
    if let Some(controller) = position.control[q] {
        if !closed {
            let code = province_code(q);
            return Err(Error::invalid_state(
                format!("provinces.{code}.control"),
                format!("{code} is not closed: nobody controls it yet"),
            ));
        }
        check_sums(position, q, Some(controller))?;
    } else if closed && position.bonus[q].is_none() {
        check_sums(position, q, None)?;
    }
    Ok(())
}

/// The bonus tokens of a kind that have left the board, given those still on it.
fn taken(on_board: &[u8; 4], bonus: Bonus) -> u32 {
    u32::from(bonus.count()) - u32::from(on_board[bonus as usize]).min(u32::from(bonus.count()))
}

/// No more bonus tokens of a kind on the board than the game has.
fn bonus_counts_fit(on_board: &[u8; 4]) -> Result<()> {
    for bonus in Bonus::ALL {
        if on_board[bonus as usize] > bonus.count() {
            return Err(Error::invalid_state(
                "provinces",
                format!(
                    "{} {} tokens on the board, but the game has {}",
                    on_board[bonus as usize],
                    bonus.name(),
                    bonus.count()
                ),
            ));
        }
    }
    Ok(())
}

/// Senate tokens held, hand limits grown (Wealth) and flips (Might) come from tokens taken.
fn taken_bonuses_cover_their_use(position: &Position, on_board: &[u8; 4]) -> Result<()> {
    let senate_held = u32::from(position.senate[0]) + u32::from(position.senate[1]);
    let senate_taken = taken(on_board, Bonus::Senate);
    // A winning closure may take a Senate token and end before keeping it.
    if senate_held != senate_taken {
        return Err(Error::invalid_state(
            "senate",
            format!("{senate_taken} Senate tokens have left the board, but the players hold {senate_held}"),
        ));
    }
    let wealth_used: u32 = position
        .hand_limits
        .iter()
        .map(|&l| u32::from(l - START_HAND_LIMIT))
        .sum();
    if wealth_used > taken(on_board, Bonus::Wealth) {
        return Err(Error::invalid_state(
            "hand_limits",
            format!("the hand limits grew by {wealth_used} in all, but only {} Wealth tokens have left the board", taken(on_board, Bonus::Wealth)),
        ));
    }
    let flips = position
        .borders
        .iter()
        .flatten()
        .filter(|t| t.flipped)
        .count() as u32
        + position.province_flipped.count_ones();
    if flips > taken(on_board, Bonus::Might) {
        return Err(Error::invalid_state(
            "borders",
            format!("{flips} tokens and markers are flipped, but only {} Might tokens have left the board", taken(on_board, Bonus::Might)),
        ));
    }
    Ok(())
}

/// Italia's dashed space goes with its solid one.
fn italia_dashed_fits_control(position: &Position, winner: Option<Player>) -> Result<()> {
    match (position.italia_dashed, position.control[IT]) {
        (Some(dashed), control) if control != Some(dashed) => Err(Error::invalid_state(
            "italia_dashed",
            format!(
                "the dashed space holds {}'s marker, so {} controls IT",
                dashed.name(),
                dashed.name()
            ),
        )),
        (None, Some(controller)) if winner != Some(controller) => Err(Error::invalid_state(
            "italia_dashed",
            format!(
                "{} controls IT, so its dashed space holds their second marker",
                controller.name()
            ),
        )),
        _ => Ok(()),
    }
}

/// Border markers: between two provinces of one controller, and there whenever both sides are
/// held unflipped before the game ends.
fn border_markers_fit_control(position: &Position, winner: Option<Player>) -> Result<()> {
    for (border, &(a, b, _)) in BORDERS.iter().enumerate() {
        let Some(placed) = position.borders[border] else {
            continue;
        };
        let id = border_id(border);
        match placed.marker {
            Some(owner) => {
                if position.control[a] != Some(owner) || position.control[b] != Some(owner) {
                    return Err(Error::invalid_state(
                        format!("borders.{id}.marker"),
                        format!(
                            "a marker of {} on {id} needs both provinces controlled by {}",
                            owner.name(),
                            owner.name()
                        ),
                    ));
                }
            }
            None => {
                let both = position.control[a].filter(|c| position.control[b] == Some(*c));
                if let Some(owner) = both {
                    if !position.is_flipped(a) && !position.is_flipped(b) && winner.is_none() {
                        return Err(Error::invalid_state(
                            format!("borders.{id}.marker"),
                            format!("{} controls both sides of {id}, neither marker flipped: the border holds their marker", owner.name()),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Markers placed: those on the board plus those under Senate tokens.
fn markers_placed_fit_board(position: &Position, player: Player) -> Result<()> {
    let p = player as usize;
    let visible = position
        .control
        .iter()
        .filter(|c| **c == Some(player))
        .count() as u32
        + u32::from(position.italia_dashed == Some(player))
        + position
            .borders
            .iter()
            .flatten()
            .filter(|t| t.marker == Some(player))
            .count() as u32;
    let placed = u32::from(position.markers[p]);
    let held = u32::from(position.senate[p]);
    let senate_most = held * (held + 1) / 2;
    if placed < visible || placed - visible > senate_most {
        return Err(Error::invalid_state(
            format!("markers.{}", player.name()),
            format!(
                "{} has {visible} control markers on the board and at most {senate_most} under {held} Senate tokens, so not {placed} placed",
                player.name()
            ),
        ));
    }
    Ok(())
}

/// Turns: Caesar first, alternating but for extra turns, each from a Tactics token.
fn turns_fit_tactics(position: &Position, on_board: &[u8; 4]) -> Result<()> {
    let placed = |player: Player| {
        position
            .borders
            .iter()
            .flatten()
            .filter(|t| t.owner == player)
            .count() as u32
    };
    let (mut caesar, mut pompey) = (placed(Player::Caesar), placed(Player::Pompey));
    match position.to_move {
        Some(Player::Caesar) => caesar += 1,
        Some(Player::Pompey) => pompey += 1,
        None => {}
    }
    let tactics_taken = taken(on_board, Bonus::Tactics);
    let extra = fewest_extra_turns(caesar, pompey);
    if extra.is_none_or(|extra| extra > tactics_taken) {
        return Err(Error::invalid_state(
            "to_move",
            format!(
                "caesar placed {} tokens and pompey {}: with Caesar first and {} Tactics taken, {} cannot be to move",
                placed(Player::Caesar),
                placed(Player::Pompey),
                tactics_taken,
                position.to_move.map_or("nobody", Player::name)
            ),
        ));
    }
    Ok(())
}

/// Fewest extra turns (Tactics) that a turn sequence starting with Caesar needs to hold `caesar` and
/// `pompey` turns; `None` when no such sequence starts with Caesar.
fn fewest_extra_turns(caesar: u32, pompey: u32) -> Option<u32> {
    if caesar == 0 {
        return (pompey == 0).then_some(0);
    }
    Some(if caesar > pompey {
        caesar - pompey - 1
    } else {
        pompey - caesar
    })
}

/// The control of a resolved province fits its sums: the numbers facing it now, where a token
/// flipped after the closure may have counted in full then.
fn check_sums(position: &Position, province: usize, control: Option<Player>) -> Result<()> {
    let mut least = [0u32; 2];
    let mut most = [0u32; 2];
    for border in 0..BORDER_COUNT {
        if PROVINCE_MASK[province] >> border & 1 == 0 {
            continue;
        }
        if let Some(placed) = position.borders[border] {
            let value = placed.facing(border, province);
            let owner = placed.owner as usize;
            most[owner] += value;
            if !placed.flipped {
                least[owner] += value;
            }
        }
    }
    let fits = match control {
        Some(winner) => {
            let (w, l) = (winner as usize, winner.other() as usize);
            most[w] > least[l]
        }
        None => most[0] >= least[1] && most[1] >= least[0],
    };
    if fits {
        return Ok(());
    }
    let code = province_code(province);
    Err(Error::invalid_state(
        format!("provinces.{code}.control"),
        format!(
            "the tokens facing {code} sum to caesar {}..{} and pompey {}..{}: {}",
            least[0],
            most[0],
            least[1],
            most[1],
            match control {
                Some(winner) => format!("{} cannot have won it", winner.name()),
                None => "they cannot have tied".to_owned(),
            }
        ),
    ))
}
