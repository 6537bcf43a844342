"""RoboRally's evaluation jobs: boards listed and pictured, races recorded (`boards`), and the race
studies (`study`)."""
