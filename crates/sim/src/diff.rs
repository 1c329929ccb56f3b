//! Where two worlds differ, field by field, entities labelled by index and
//! id: the names a desync report and `replay-diff --state` print.

pub use twinstar_replay_format::FieldDiff;

use crate::World;

/// Pushes a [`FieldDiff`] onto `$out` for each named field of `$x` and `$y`
/// that differs, its path `$prefix` + the field's name.
macro_rules! cmp {
    ($out:expr, $prefix:expr, $x:expr, $y:expr, [$($field:ident),*]) => {
        $(
            if $x.$field != $y.$field {
                $out.push(FieldDiff {
                    path: format!("{}{}", $prefix, stringify!($field)),
                    a: format!("{:?}", $x.$field),
                    b: format!("{:?}", $y.$field),
                });
            }
        )*
    };
}

/// Every field that differs between two worlds, entities labelled by index
/// and id.
pub fn world_diff(a: &World, b: &World) -> Vec<FieldDiff> {
    let mut out = Vec::new();
    cmp!(
        out,
        "",
        a,
        b,
        [
            config,
            frame,
            phase,
            next_id,
            restarts,
            enemy_count,
            bullet_count,
            pickup_count,
            marker_count
        ]
    );
    cmp!(
        out,
        "spawner.",
        a.spawner,
        b.spawner,
        [
            rng,
            wave,
            pause,
            group,
            group_spawned,
            group_timer,
            windup_gate,
            wave_hit,
            wave_done
        ]
    );
    cmp!(
        out,
        "team.",
        a.team,
        b.team,
        [
            score,
            combo,
            combo_timer,
            max_combo,
            bosses_defeated,
            best_wave
        ]
    );
    players(&mut out, a, b);
    enemies(&mut out, a, b);
    pools(&mut out, a, b);
    out
}

fn players(out: &mut Vec<FieldDiff>, a: &World, b: &World) {
    for (i, (x, y)) in a.players.iter().zip(&b.players).enumerate() {
        cmp!(
            out,
            format!("players[{i}]."),
            x,
            y,
            [
                pos,
                score,
                kills,
                lives,
                respawn_timer,
                invulnerable,
                fire_cooldown,
                weapon_timer,
                revive_progress,
                revives,
                hits,
                bombs_used,
                pickups,
                held,
                alive,
                downed,
                facing,
                bombs,
                weapon,
                shield
            ]
        );
    }
}

/// The live enemies (the longer count of the two), labelled by their ids.
fn enemies(out: &mut Vec<FieldDiff>, a: &World, b: &World) {
    let enemies = a.enemy_count.max(b.enemy_count) as usize;
    for (i, (x, y)) in a.enemies.iter().zip(&b.enemies).take(enemies).enumerate() {
        let label = if x.id == y.id {
            format!("id {}", x.id)
        } else {
            format!("ids {} / {}", x.id, y.id)
        };
        cmp!(
            out,
            format!("enemies[{i}] ({label})."),
            x,
            y,
            [
                id, kind, pos, vel, aim, hp, max_hp, state, timer, angle, target, phase, grace,
                elite, burst, rng
            ]
        );
    }
}

/// The live bullets, pickups and markers (the longer count of the two).
fn pools(out: &mut Vec<FieldDiff>, a: &World, b: &World) {
    let bullets = a.bullet_count.max(b.bullet_count) as usize;
    for (i, (x, y)) in a.bullets.iter().zip(&b.bullets).take(bullets).enumerate() {
        cmp!(
            out,
            format!("bullets[{i}]."),
            x,
            y,
            [pos, vel, ttl, owner, pierce, hit_id]
        );
    }
    let pickups = a.pickup_count.max(b.pickup_count) as usize;
    for (i, (x, y)) in a.pickups.iter().zip(&b.pickups).take(pickups).enumerate() {
        cmp!(out, format!("pickups[{i}]."), x, y, [pos, ttl, kind]);
    }
    let markers = a.marker_count.max(b.marker_count) as usize;
    for (i, (x, y)) in a.markers.iter().zip(&b.markers).take(markers).enumerate() {
        cmp!(
            out,
            format!("markers[{i}]."),
            x,
            y,
            [pos, rng, timer, kind, elite]
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Fx, SimConfig};

    #[test]
    fn world_diff_names_entity_and_field() {
        let a = World::new(1, SimConfig::DEFAULT);
        let mut b = a.clone();
        assert!(world_diff(&a, &b).is_empty());
        b.players[1].score = 42;
        b.players[0].pos.x += Fx::from_num(1);
        let d = world_diff(&a, &b);
        let paths: Vec<&str> = d.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["players[0].pos", "players[1].score"]);
        assert_eq!((d[1].a.as_str(), d[1].b.as_str()), ("0", "42"));
    }
}
