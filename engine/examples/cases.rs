fn main() {
    println!("{:?}", grains::validation::v9_slide_to_roll(0.12));
    println!("{:?}", grains::validation::v9_slide_to_roll(0.012));
    println!("{:?}", grains::validation::v11_rolling_disk());
    println!("{:?}", grains::validation::v5_cannonball());
}
