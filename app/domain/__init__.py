"""Pure logic of the site, with no IO: results of games, clock arithmetic (later ratings, offers).

Nothing here touches the database, the network or the wall clock; tests call it directly.
"""
