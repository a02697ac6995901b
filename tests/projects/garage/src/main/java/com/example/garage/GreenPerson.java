package com.example.garage;

/** The callee: a subclass that redefines addEnergy. */
public class GreenPerson extends Person {
    private boolean charged;

    public void plugIn() {
        charged = true;
    }

    @Override
    protected void addEnergy() {
        if (charged) {
            energy += 50;
            charged = false;
        } else {
            super.addEnergy();
        }
    }
}
