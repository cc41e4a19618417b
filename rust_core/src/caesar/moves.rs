//! Playing a Caesar! turn: the placement checked, the provinces it closes and their bonuses, the
//! turn's end, and what the move did (`Effects`, a `Closure` a province).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::board::{
    border_id, borders_in, closed_around, province_code, token_borders, token_code,
    token_icon_name, token_list, token_total, Bonus, Player, BORDERS, CONTROL_MARKERS, IT,
    PROVINCE_COUNT, PROVINCE_MASK,
};
use super::draws::{check_draws_used, Draws};
use super::notation::{BorderIndex, Choice, Move, ProvinceIndex, Target};
use super::state::{CountSchema, FacesSchema, Ordered, PerPlayer, TokenSchema};
use super::{Placed, Position};
use crate::error::{Error, Result};
use crate::nullable::Nullable;

/// One province's closure, as reported to clients.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "CaesarClosure")]
pub struct Closure {
    /// The province's code.
    pub province: &'static str,
    /// The bonus token taken with the province; null when none was left on it.
    #[schemars(with = "Nullable<Bonus>")]
    pub bonus: Option<&'static str>,
    /// Each player's influence on the province.
    #[schemars(with = "PerPlayer<CountSchema>")]
    pub sums: PerPlayer<u32>,
    /// Who took control; null on a tie.
    #[schemars(with = "Nullable<Player>")]
    pub control: Option<&'static str>,
    /// Where markers went, in order: the province, `IT*` (Italia's dashed space), border ids,
    /// `senate` per Senate marker.
    pub markers: Vec<&'static str>,
    /// `T`, `W`, `M:<target>` or `-`; null for Senate or when the game ended first.
    pub choice: Option<String>,
}

/// What a move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "CaesarEffects")]
pub struct Effects {
    #[schemars(with = "Player")]
    pub player: &'static str,
    #[schemars(with = "TokenSchema")]
    pub token: &'static str,
    /// The border the token was placed on.
    pub border: &'static str,
    /// The number facing each of the border's two provinces.
    #[schemars(with = "FacesSchema")]
    pub faces: Ordered<u8>,
    pub closures: Vec<Closure>,
    /// The tokens the mover drew.
    #[schemars(with = "Vec<TokenSchema>")]
    pub drawn: Vec<&'static str>,
    /// Tactics was used: the mover plays again (unless the game is over).
    pub extra_turn: bool,
    /// The winner when the game is over after this move.
    #[schemars(with = "Nullable<Player>")]
    pub winner: Option<&'static str>,
}

/// The effects of placing `kind` on `border` (with the faces it shows), before any closure.
pub(super) fn placement_effects(
    player: Player,
    kind: usize,
    border: usize,
    forward: bool,
) -> Effects {
    let placed = Placed {
        kind: kind as u8,
        owner: player,
        forward,
        flipped: false,
        marker: None,
    };
    let (first, second) = placed.faces();
    let (a, b, _) = BORDERS[border];
    Effects {
        player: player.name(),
        token: token_code(kind),
        border: border_id(border),
        faces: Ordered(vec![
            (province_code(a).into(), first),
            (province_code(b).into(), second),
        ]),
        closures: Vec::new(),
        drawn: Vec::new(),
        extra_turn: false,
        winner: None,
    }
}

/// A closure gives a bonus that needs a choice, and the move has none left.
pub(super) fn missing_choice(province: usize, player: Player, bonus: Bonus) -> Error {
    Error::illegal_move(
        "missing-choice",
        format!(
            "closing {} gives {} the {} bonus: say T/W/M:<target> to use it or - to decline",
            province_code(province),
            player.name(),
            bonus.name()
        ),
        json!({ "province": province_code(province), "bonus": bonus.name() }),
    )
}

impl Position {
    /// Places one control marker; true when it is the player's 12th (they win at once).
    pub(super) fn place_marker(&mut self, player: Player) -> bool {
        let count = &mut self.markers[player as usize];
        *count = count.saturating_add(1);
        *count >= CONTROL_MARKERS
    }

    /// Closing steps 1–4: the closer takes the bonus (returned), the higher sum places a marker (Italia a
    /// second one), border markers toward adjacent provinces of the same controller. Returns the
    /// report and whether a 12th marker was placed.
    pub(super) fn close(
        &mut self,
        province: usize,
        closer: Player,
    ) -> (Closure, Option<Bonus>, bool) {
        // Step 1: the closer takes the bonus token; a Senate is theirs from now on, even if a 12th
        // marker ends the game before its step 5.
        let bonus = self.bonus[province].take();
        if bonus == Some(Bonus::Senate) {
            let held = &mut self.senate[closer as usize];
            *held = held.saturating_add(1);
        }
        let mut sums = [0u32; 2];
        for border in borders_in(PROVINCE_MASK[province]) {
            if let Some(placed) = self.borders[border].filter(|p| !p.flipped) {
                sums[placed.owner as usize] += placed.facing(border, province);
            }
        }
        let control = match sums[0].cmp(&sums[1]) {
            std::cmp::Ordering::Greater => Some(Player::Caesar),
            std::cmp::Ordering::Less => Some(Player::Pompey),
            std::cmp::Ordering::Equal => None,
        };
        let mut report = Closure {
            province: province_code(province),
            bonus: bonus.map(Bonus::name),
            sums: PerPlayer::of(sums),
            control: control.map(Player::name),
            markers: Vec::new(),
            choice: None,
        };
        let won = control.is_some_and(|player| self.place_control(province, player, &mut report));
        (report, bonus, won)
    }

    /// Steps 2–4 for the province's controller; true when a 12th marker is placed.
    pub(super) fn place_control(
        &mut self,
        province: usize,
        player: Player,
        report: &mut Closure,
    ) -> bool {
        self.control[province] = Some(player);
        report.markers.push(province_code(province));
        if self.place_marker(player) {
            return true;
        }
        if province == IT {
            self.italia_dashed = Some(player);
            report.markers.push("IT*");
            if self.place_marker(player) {
                return true;
            }
        }
        for border in borders_in(PROVINCE_MASK[province]) {
            let (a, b, _) = BORDERS[border];
            let neighbour = if a == province { b } else { a };
            if self.control[neighbour] != Some(player) || self.is_flipped(neighbour) {
                continue;
            }
            if let Some(placed) = self.borders[border].as_mut() {
                placed.marker = Some(player);
                report.markers.push(border_id(border));
                if self.place_marker(player) {
                    return true;
                }
            }
        }
        false
    }

    /// Senate (step 5, automatic): the closer, having won the province, places as many markers under
    /// the token (taken at step 1) as Senate tokens they hold. True when a 12th marker is placed.
    pub(super) fn keep_senate(&mut self, closer: Player, report: &mut Closure) -> bool {
        let held = self.senate[closer as usize];
        if report.control != Some(closer.name()) {
            return false;
        }
        for _ in 0..held {
            report.markers.push("senate");
            if self.place_marker(closer) {
                return true;
            }
        }
        false
    }

    /// The Might targets of `closer`: the opponent's face-up uncovered tokens, then the opponent's
    /// face-up province markers.
    pub(super) fn might_targets(&self, closer: Player) -> Vec<Target> {
        let opponent = closer.other();
        let tokens = self
            .borders
            .iter()
            .enumerate()
            .filter_map(|(border, placed)| {
                placed
                    .filter(|p| p.owner == opponent && !p.flipped && p.marker.is_none())
                    .and_then(|_| BorderIndex::new(border).map(Target::Border))
            });
        let provinces = (0..PROVINCE_COUNT)
            .filter(|&q| self.control[q] == Some(opponent) && !self.is_flipped(q))
            .filter_map(|q| ProvinceIndex::new(q).map(Target::Province));
        tokens.chain(provinces).collect()
    }

    pub(super) fn flip(&mut self, target: Target) {
        match target {
            Target::Border(border) => {
                if let Some(placed) = self.borders[border.index()].as_mut() {
                    placed.flipped = true;
                }
            }
            Target::Province(province) => self.province_flipped |= 1 << province.index(),
        }
    }

    /// Puts a token from the mover's hand on a border, unchecked.
    pub(super) fn put(&mut self, player: Player, kind: usize, border: usize, forward: bool) {
        self.hands[player as usize][kind] -= 1;
        self.borders[border] = Some(Placed {
            kind: kind as u8,
            owner: player,
            forward,
            flipped: false,
            marker: None,
        });
        self.filled |= 1 << border;
    }

    pub fn play(&self, mv: Move) -> Result<(Position, Effects)> {
        let mut draws = if mv.draws().is_empty() {
            Draws::Seeded
        } else {
            Draws::Given {
                tokens: mv.draws(),
                used: 0,
            }
        };
        self.play_drawing(&mv, &mut draws)
    }

    /// Plays `mv` with its draws from `draws` (the move's own, the state's random source, or
    /// deferred to chance).
    pub(super) fn play_drawing(&self, mv: &Move, draws: &mut Draws) -> Result<(Position, Effects)> {
        let player = self.active().ok_or(Error::GameOver)?;
        let (kind, border) = (mv.kind(), mv.border());
        self.check_placement(player, kind, border)?;
        let forward = mv.forward();
        let mut next = self.clone();
        next.put(player, kind, border, forward);
        let mut effects = placement_effects(player, kind, border, forward);
        if let (Draws::Given { tokens, .. }, Some(key_id)) = (&draws, self.chance.keyed_by()) {
            // With keyed chance (a service with seal keys) the draws come from the generator
            // alone: listing them would let the mover choose their own tokens.
            return Err(Error::illegal_move(
                "listed-draws",
                format!(
                    "the move lists {} draw(s), but this game's draws come from its keyed random source (key {key_id:?}): give the move without draws",
                    tokens.len()
                ),
                json!({ "listed": tokens.len() }),
            ));
        }
        let mut choices = mv.choices().iter().copied();
        let won = next.close_provinces(border, player, &mut choices, draws, &mut effects)?;
        if let Some(extra) = choices.next() {
            let expected = mv.choices().len() - 1 - choices.count();
            return Err(Error::illegal_move(
                "too-many-choices",
                format!(
                    "choice {extra} has no bonus to apply to: this placement gives {expected} Tactics, Wealth or Might choice(s)"
                ),
                json!({ "choice": extra.to_string(), "expected": expected }),
            ));
        }
        next.end_turn(player, won, draws, &mut effects)?;
        check_draws_used(draws)?;
        effects.winner = next.result().map(|(winner, _)| winner.name());
        Ok((next, effects))
    }

    /// Steps 1–2: the token is in the mover's hand, the border is free and takes that token.
    pub(super) fn check_placement(&self, player: Player, kind: usize, border: usize) -> Result<()> {
        let id = border_id(border);
        if self.hands[player as usize][kind] == 0 {
            return Err(Error::illegal_move(
                "token-not-in-hand",
                format!("{} has no {} in hand", player.name(), token_code(kind)),
                json!({ "token": token_code(kind), "hand": token_list::<&str>(&self.hands[player as usize]) }),
            ));
        }
        if self.filled >> border & 1 == 1 {
            return Err(Error::illegal_move(
                "border-occupied",
                format!("the border {id} already holds a token"),
                json!({ "border": id }),
            ));
        }
        if token_borders(kind) >> border & 1 == 0 {
            let icon = BORDERS[border].2.name();
            return Err(Error::illegal_move(
                "icon-mismatch",
                format!(
                    "{} is a {} token: it goes on a {} border or is a laurel, and {id} is a {icon} border",
                    token_code(kind),
                    token_icon_name(kind),
                    token_icon_name(kind)
                ),
                json!({ "token": token_code(kind), "icon": token_icon_name(kind), "border": id, "border_icon": icon }),
            ));
        }
        Ok(())
    }

    /// Steps 3–5 on the position after the placement on `border`: closes each province it closes,
    /// giving its bonus (with the move's next choice where the bonus needs one). Whether a 12th
    /// marker won the game.
    pub(super) fn close_provinces(
        &mut self,
        border: usize,
        player: Player,
        choices: &mut impl Iterator<Item = Choice>,
        draws: &mut Draws,
        effects: &mut Effects,
    ) -> Result<bool> {
        let (closing, count) = closed_around(self.filled, border);
        for &province in &closing[..count] {
            let (mut report, bonus, mut won) = self.close(province, player);
            if !won {
                won = match bonus {
                    None => false,
                    Some(Bonus::Senate) => self.keep_senate(player, &mut report),
                    Some(bonus) => {
                        let choice = choices
                            .next()
                            .ok_or_else(|| missing_choice(province, player, bonus))?;
                        self.use_bonus(province, bonus, player, choice, draws, effects)?;
                        report.choice = Some(choice.text());
                        false
                    }
                };
            }
            effects.closures.push(report);
            if won {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Step 6: a win ends the game; otherwise the mover draws up to the hand limit and the turn
    /// passes (or stays, after Tactics).
    pub(super) fn end_turn(
        &mut self,
        player: Player,
        won: bool,
        draws: &mut Draws,
        effects: &mut Effects,
    ) -> Result<()> {
        if won {
            // A 12th marker ends the game: no turn follows, Tactics or not.
            self.to_move = None;
            effects.extra_turn = false;
            return Ok(());
        }
        let p = player as usize;
        let held = token_total(&self.hands[p]) + draws.deferred();
        for _ in held..u32::from(self.hand_limits[p]) {
            self.draw(player, draws, &mut effects.drawn)?; // none once the bag is empty
        }
        self.to_move = Some(if effects.extra_turn {
            player
        } else {
            player.other()
        });
        Ok(())
    }

    /// Step 5 for Tactics, Wealth and Might: the closer's choice, checked.
    pub(super) fn use_bonus(
        &mut self,
        province: usize,
        bonus: Bonus,
        closer: Player,
        choice: Choice,
        draws: &mut Draws,
        effects: &mut Effects,
    ) -> Result<()> {
        let code = province_code(province);
        if !choice.fits(bonus) {
            return Err(Error::illegal_move(
                "choice-mismatch",
                format!(
                    "closing {code} gives the {} bonus: choice {choice} does not apply to it ({} or -)",
                    bonus.name(),
                    match bonus {
                        Bonus::Tactics => "T",
                        Bonus::Wealth => "W",
                        _ => "M:<target>",
                    }
                ),
                json!({ "province": code, "bonus": bonus.name(), "choice": choice.to_string() }),
            ));
        }
        match choice {
            Choice::Decline => {}
            Choice::Tactics => effects.extra_turn = true,
            Choice::Wealth => {
                let limit = &mut self.hand_limits[closer as usize];
                *limit = limit.saturating_add(1);
                self.draw(closer, draws, &mut effects.drawn)?;
            }
            Choice::Might(target) => {
                let targets = self.might_targets(closer);
                if !targets.contains(&target) {
                    let names: Vec<String> = targets.iter().map(ToString::to_string).collect();
                    return Err(Error::illegal_move(
                        "might-target",
                        format!(
                            "{target} is not a Might target: the targets are {}'s face-up uncovered tokens and face-up province markers ({})",
                            closer.other().name(),
                            if names.is_empty() { "none: decline with -".to_owned() } else { names.join(", ") }
                        ),
                        json!({ "province": code, "target": target.to_string(), "targets": names }),
                    ));
                }
                self.flip(target);
            }
        }
        Ok(())
    }
}
