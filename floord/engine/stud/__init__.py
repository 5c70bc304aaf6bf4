"""Mississippi Stud: rules, play, settlement."""
