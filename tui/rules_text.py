"""The rules of both games and the keys of the table, in quackbox's own words.

Written for this program (not copied from the rulebooks); where the
rulebooks are silent the text follows the rulings in the design brief.
"""

from __future__ import annotations

_SIDE_EFFECTS_RULES = """\
# Side Effects

**Goal.** Be the first to have every Disorder in your *Psyche* treated.

**Your things.** In front of you lies your Psyche: four Disorders dealt face up
(three at a table of six or more). In your hand are cards nobody else sees.

**Your turn.**

1. Draw 2 cards.
2. Make up to **2 plays** (none is fine too). Discarding from your own hand on
   your own turn is free: it is not a play.
3. End your turn. If you hold more than six cards, throw away the extras.

**The plays.**

- **Treat** one of your Disorders by laying the Drug for it on top.
- **Give a Disorder** from your hand to a rival who is *open to* it. The Drugs
  on a Psyche have side effects, and a player is open to every Disorder those
  side effects name, unless they already have that Disorder (treated or not).
  Someone with no Drugs on their Psyche is open to nothing.
- **Therapy** throws away one of your own untreated Disorders together with the
  Therapy card. It works on anything except Tremors. Nothing else cures
  Anorexia.
- **Episode**: aim at a rival's *untreated* Disorder and that Disorder's
  punishment happens to them. Episode punishments:

{punishments}

An Episode that would do nothing can still be played (the card is spent);
the table warns you first.

**Drugs and their side effects.**

{drugs}

**Winning.** The moment a play leaves you with no untreated Disorder, you win.
With the *until one loser* option, winners leave and the rest play on until
only one player is left.

**Trading.** At any time you may offer a rival a deal: cards from your hand for
cards from theirs (one side may be empty: a gift). They accept or decline. An
offer lapses as soon as either hand changes. A trade is never a play.

**Options.** *Duplicate Disorders* lets a Psyche hold the same Disorder twice;
*treat others* lets your Drug treat someone else's Disorder; *bonus cards* adds
Misdiagnosis (swap one of your untreated Disorders for a rival's) and High
Tolerance (throw away a Drug from a rival's Psyche).
"""

QUACK_RULES = """\
# Quack in the Box

**Goal.** Finish with the most money without being run out of town. Each doctor
treats one Patient at a time, bills for every Treatment, and collects *Infamy*
each time a Patient dies. Reach the Infamy threshold and the Angry Mob takes you
out of the game.

**The cards.** *Patients* (their own deck) show their illness types, the
**Cure** points that send them home healthy, the **Kill** number of Harm points
that finishes them, the **Infamy** their death brings, and sometimes a
**Mortal** number: after that many Treatments without a cure, they die anyway.
*Treatments* have a type, a price and tables of what they Cure and Harm per
illness type. *Anytime* cards can be played by anyone still in the game, at any
moment, on anyone.

**A turn, in six steps.**

1. **Flee?** Before drawing you may leave for Switzerland for good: your money
   and Infamy freeze, your Patient leaves unpaid, and from then on you only play
   Anytime cards (each turn you draw until you find one).
2. **Draw** up to six cards.
3. **Admit a Patient** if you have none, and collect the $50 co-pay.
4. **Roll** for how many Treatments you must play this round: 2 to 5.
5. **Treat**: play them one at a time on your Patient. A Treatment counts the
   largest Cure value among the Patient's illness types it lists, and the
   largest Harm value likewise; *All others* harms every illness type the card
   does not name. Harm reaching Kill kills the Patient (even if the same card
   cures it); Cure reaching Cure sends them home. Out of Treatments? Play them
   all, then play or throw away one Anytime card.
6. **Angry Mob**: a doctor at or over the Infamy threshold is out.

**Payday.** After treating, you are paid the price of every Treatment you played
this round, if the Patient survived the round. A death pays nothing and adds the
Patient's Infamy to yours.

**Between Treatments** the other doctors get a short window to play an Anytime
card; pass with *space* if you have nothing to add.

**The Anytime cards.** Pick one with its number, aim it with the arrows (the
target is lit on the table), Enter plays it. A card that acts later (a payday,
the next Treatment or Patient) waits beside its target as a reminder (⚑).

{anytime}

**The end.** When at most two doctors are still practising, each of them takes
one more turn. Then the doctor with the most money who was not mobbed wins
(ties go to lower Infamy). A round limit makes sure every game ends.

**Variants.** *Turbo-Infamy*: each death gives every doctor one Infamy.
*Group Practice*: Treatments may go on anyone's Patient; the killer takes all
the Infamy. *Deathmatch*: nobody may flee.
"""

TABLE_KEYS = """\
Everything works with the keyboard alone; the mouse works too: click a card,
click a target, click it again to play.

**At both tables**

- **1-9** pick the card with that number (again to put it back)
- **← →** pick the previous / next card
- **↑ ↓** choose among the picked card's targets (lit on the table)
- **Enter** play the picked card on the chosen target
- **d** discard the picked card
- **Esc** put the card back; close a dialog
- **c** chat with the table (Enter sends, Esc closes)
- **l** read back through the log (Esc returns)
- **r** the rules of this game · **?** this help
- **Ctrl+P** the command palette: every action by name
- **q** leave the table · **Ctrl+Q** quit quackbox

**Side Effects**

- **e** end your turn
- **t** offer a trade · **o** answer offers (accept, decline, withdraw)
- **1-9 during Tremors** throw that card away at once: the clock is running!

**Quack in the Box**

- **s** stay and practise · **f** flee to Switzerland (asks first)
- **1-9**, **↑ ↓**, **Enter** pick a card, aim it, play it: Treatments on your
  turn, Anytime cards at any time (a card that hurts is aimed at a rival first)
- **space** pass: let the moment go by without an Anytime card
- **a** auto-pass on/off: windows pass by themselves after 3 s unless you pick a card
- **d** throw away an Anytime card when you are out of Treatments
- **m** the money chart so far · **g** the summary when the game is over
"""

HOW_TO_WIN = {
    "side-effects": """\
[b]To win[/b], be the first with every Disorder of your Psyche treated.

[b]Your turn[/b]: you draw 2 cards, then make up to 2 plays:
 · treat one of your Disorders with the Drug for it,
 · give a rival a Disorder their Drugs leave them open to,
 · or play an Episode on a rival's untreated Disorder.
Then you end your turn, and the others take theirs (the log says what
they did). Every Drug on your Psyche opens you to its side effects.""",
    "quack": """\
[b]To win[/b], have the most money when the game ends, and keep out of the
Angry Mob's way: each Patient who dies in your care adds Infamy, and
Infamy reaching the threshold puts you out of the game.

[b]Your turn[/b]: stay and practise (or flee to Switzerland, for good). You
admit a Patient and roll how many Treatments you owe this round, then
play them on your Patient one at a time. A Patient who lives through
the round pays for every Treatment; enough Cure sends them home, too
much Harm kills them. Between Treatments anyone may play an Anytime card.""",
}
"""How to win and what a turn is, in Rich markup: the how-to-play card's first part, on
the table and in the plain mode alike."""

HOW_TO_PLAY_KEYS = {
    "side-effects": """\
Your Psyche is the row under "Your Psyche": ✗ is untreated, ✓ treated.

[b]The keys you need[/b]
 [b]1-9[/b]     pick a card: where it can go lights up
 [b]Enter[/b]   play it there (↑↓ choose another place first)
 [b]e[/b]       end your turn""",
    "quack": """\
The pips beside each doctor are their Infamy, up to the threshold.

[b]The keys you need[/b]
 [b]s[/b]           stay and practise (f flees)
 [b]1-9 Enter[/b]   pick a card, then play it (↑↓ aim an Anytime card)
 [b]space[/b]       let a chance to play an Anytime card go by""",
}
"""Where the full-screen table shows what the first part speaks of, and the three keys a first game needs."""

HOW_TO_PLAY = {
    game: f"{HOW_TO_WIN[game]}\n\n{HOW_TO_PLAY_KEYS[game]}\n\n? lists every key, r the rules, q leaves."
    for game in HOW_TO_WIN
}
"""The card a person's very first game of each game opens with on the table: how to win,
what a turn is, and the three keys the game needs (tui.first_games)."""


def side_effects_rules() -> str:
    """The Side Effects page, its tables made from the deck data (a house deck shows as played)."""
    from quackbox.cards import side_effects as se_cards
    from quackbox.core.side_effects import RULES as SE
    from quackbox.core.side_effects.text import punishment_text

    kinds = SE.deck.kinds
    rows = []
    for card in kinds:
        if card.kind == se_cards.DISORDER:
            words = punishment_text(
                card.punishment,
                target="they",
                their="their",
                inflictor="you",
                inflictor_object="you",
                target_plural=True,
                inflictor_plural=True,
            )
            rows.append(f"- **{card.name}**: {words}")
    drugs = []
    treated = set()
    for card in kinds:
        if card.kind == se_cards.DRUG:
            treated.add(card.treats)
            opens = ", ".join(card.side_effects) or "nothing"
            drugs.append(f"- **{card.name}** treats {card.treats}; opens you to {opens}")
    for card in kinds:
        if card.kind == se_cards.DISORDER and card.name not in treated:
            drugs.append(f"- no Drug treats **{card.name}**: use Therapy")
    return _SIDE_EFFECTS_RULES.format(punishments="\n".join(rows), drugs="\n".join(drugs))


def quack_rules() -> str:
    """The Quack in the Box page, its Anytime cards listed from the deck data (a house deck shows as played)."""
    from quackbox.core.quack import RULES as QUACK

    deck = QUACK.deck
    cards = []
    for card, copies in zip(deck.anytimes, deck.anytime_copies):
        count = f" (×{copies})" if copies > 1 else ""
        cards.append(f"- **{card.name}**{count}: {card.description}")
    return QUACK_RULES.format(anytime="\n".join(cards))
