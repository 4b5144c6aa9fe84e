"""Pure logic of the site, with no IO: results of games, time controls and clocks, ratings.

Nothing here touches the database, the network or the wall clock; tests call it directly.
"""
