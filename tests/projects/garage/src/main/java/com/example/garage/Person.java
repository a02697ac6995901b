package com.example.garage;

/** A superclass caller (Derakhshanfar et al., section 3.2.5): driveToHome calls addEnergy, which
 * GreenPerson redefines, so the pair's tests go through GreenPerson. */
public class Person {
    protected int energy;

    public void driveToHome(int km) {
        if (km < 0) {
            throw new IllegalArgumentException("km");
        }
        if (energy < km) {
            addEnergy();
        }
        energy -= km;
    }

    protected void addEnergy() {
        energy += 10;
    }

    public int energy() {
        return energy;
    }
}
