package shop;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads what the environment gives it: console input, files and a system property. */
public class Intake {
    /** The first line of the console, or "none". */
    public static String firstLine() throws IOException {
        String line = new BufferedReader(new InputStreamReader(System.in)).readLine();
        return line == null ? "none" : line;
    }

    /** The lines of a file, or -1 when there is none. */
    public static int lines(String name) throws IOException {
        File file = new File(name);
        if (!file.exists()) {
            return -1;
        }
        int n = 0;
        BufferedReader reader = new BufferedReader(new FileReader(file));
        try {
            while (reader.readLine() != null) {
                n++;
            }
        } finally {
            reader.close();
        }
        return n;
    }

    /** The size of a file in bytes. */
    public static long size(File file) {
        return file.length();
    }

    /** Whether a file exists. */
    public static boolean exists(Path path) {
        return Files.exists(path);
    }

    /** The shop's mode, from a system property. */
    public static String mode() {
        return System.getProperty("shop.mode", "open");
    }
}
